package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.wire.TcpWireDescriptor.FLAG_DELIVERY_COMPLETE;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.FLAG_REMOTE_CQ_DATA;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_MSG;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_TAGGED;

import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.provider.tcp.wire.MessageHeader;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import io.jofi.spi.util.PostChecks;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Posts message sends on a tcp connection ({@code fi_msg(3)} and the transmit half of
 * {@code fi_tagged(3)}): encodes the header (op 0, or op 1 with the tag),
 * puts the payload behind it — copied into the header buffer when it is at most
 * {@link TcpProvider#INJECT_SIZE} bytes (one plain write), else as views of the caller's
 * buffers — and queues the frame on the {@link TcpTransmitter}. A send completes on the write,
 * or on the peer's ack with {@code FI_TRANSMIT_COMPLETE}/{@code FI_DELIVERY_COMPLETE}/
 * {@code FI_MATCH_COMPLETE} (flag bit 2, R11). The connection takes its lock and counts the posts.
 */
final class TcpMessageInitiator {
    private static final long SEND_FLAGS = Fi.FI_SEND | Fi.FI_MSG;
    private static final long TSEND_FLAGS = Fi.FI_SEND | Fi.FI_TAGGED;
    /**
     * Completion levels served by the wire ack (flag bit 2). The receiver acks once the message
     * is placed in a matched receive buffer, which meets all three (R11: a stronger level than
     * asked is allowed).
     */
    private static final long ACK_LEVELS = Fi.FI_TRANSMIT_COMPLETE | Fi.FI_DELIVERY_COMPLETE | Fi.FI_MATCH_COMPLETE;

    private final TcpPeerLink peer;
    private final TcpTransmitter tx;
    /** Encodes the headers of the sends (big-endian, docs/TCP-WIRE.md "Byte order"). */
    private final MessageHeader header = new MessageHeader(ByteOrder.BIG_ENDIAN);

    TcpMessageInitiator(TcpPeerLink peer, TcpTransmitter tx) {
        this.peer = peer;
        this.tx = tx;
    }

    /**
     * Posts a send the endpoint checked ({@link io.jofi.spi.util.UtilEndpoint#postSend}: caps,
     * arguments, flags, lengths, the CQ): the connection's state and the queue's room here,
     * then the frame; under the connection's lock. {@code flags} carries {@code FI_INJECT},
     * {@code FI_REMOTE_CQ_DATA}, {@code FI_COMPLETION} and the completion level; an {@code fi_inject*} call reports nothing.
     *
     * @return 0, or {@code -ENOTCONN}/{@code -EAGAIN} (not connected, queue full), the CQ's
     *         {@code -EAGAIN} (no room for the completion), or the endpoint's state
     */
    int post(ByteBuffer buf, Msg msg, long length, boolean tagged, long tag, long data, long flags, Object context) {
        boolean inject = (flags & Fi.FI_INJECT) != 0;
        boolean reports = PostChecks.reportsToCq(flags); // fi_inject never completes; a send with FI_INJECT does
        int rc = tx.admit(reports);
        if (rc != 0) {
            return rc;
        }
        int iovCount = msg == null ? 0 : msg.iovCount();
        boolean withData = (flags & Fi.FI_REMOTE_CQ_DATA) != 0;
        TcpTransmitOp op = tx.start(TcpTransmitOp.SEND, context, reports, flags, tagged ? TSEND_FLAGS : SEND_FLAGS,
                length);
        boolean ackWanted = (flags & ACK_LEVELS) != 0;
        op.askAck(ackWanted);
        int wireFlags = (withData ? FLAG_REMOTE_CQ_DATA : 0) | (ackWanted ? FLAG_DELIVERY_COMPLETE : 0);
        // a mask, not a test of the peer's kind (TcpPeerLink.maxOp): ack only once matched, JOFI peers only
        wireFlags |= (flags & Fi.FI_MATCH_COMPLETE) != 0 ? peer.jofiFlags() & TcpWireDescriptor.FLAG_JOFI_MATCH_COMPLETE : 0;
        int wireOp = tagged ? OP_TAGGED : OP_MSG;
        ByteBuffer h = op.header;
        h.clear();
        header.clear().op(wireOp).flags(wireFlags).payloadLength(length);
        if (withData) {
            header.cqData(data);
        }
        if (tagged) {
            header.tag(tag);
        }
        header.encode(h);
        if (length <= TcpProvider.INJECT_SIZE) {
            // A small message travels as one contiguous frame (one plain write): its bytes
            // are copied now, which every completion level allows (the buffer is free at
            // return, as for inject).
            copyBehindHeader(op, buf, msg, iovCount);
            h.flip();
            op.elements(1);
            return tx.queue(op);
        }
        h.flip();
        attachPayload(op, buf, msg, iovCount, inject);
        return tx.queue(op);
    }

    /**
     * Puts the payload behind the op's header: {@code buf} or the message's iovs as views, or
     * with {@code inject} a copy of them (FI_INJECT: the caller's buffers are free at return).
     */
    static void attachPayload(TcpTransmitOp op, ByteBuffer buf, Msg msg, int iovCount, boolean inject) {
        if (inject) {
            if (msg == null) {
                op.payloadInjected(buf);
            } else {
                op.payloadGathered(msg, iovCount);
            }
            op.elements(2);
        } else if (msg == null) {
            op.payload(0, buf);
            op.elements(2);
        } else {
            for (int i = 0; i < iovCount; i++) {
                op.payload(i, msg.iov(i));
            }
            op.elements(1 + iovCount);
        }
    }

    /** Copies {@code buf} or the message's first {@code iovCount} iovs behind the op's encoded header. */
    private static void copyBehindHeader(TcpTransmitOp op, ByteBuffer buf, Msg msg, int iovCount) {
        if (msg == null) {
            op.payloadBehindHeader(buf);
            return;
        }
        for (int i = 0; i < iovCount; i++) {
            op.payloadBehindHeader(msg.iov(i));
        }
    }
}
