package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.wire.TcpWireDescriptor.FLAG_DELIVERY_COMPLETE;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.FLAG_REMOTE_CQ_DATA;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_MSG;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_TAGGED;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.TaggedMsg;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import io.jofi.spi.util.PostChecks;
import java.nio.ByteBuffer;

/**
 * Posts message sends on a tcp connection ({@code fi_msg(3)} and the transmit half of
 * {@code fi_tagged(3)}): checks the post, encodes the header (op 0, or op 1 with the tag),
 * puts the payload behind it — copied into the header buffer when it is at most
 * {@link TcpProvider#INJECT_SIZE} bytes (one plain write), else as views of the caller's
 * buffers — and queues the frame on the {@link TcpTransmitter}. A send completes on the write,
 * or on the peer's ack with {@code FI_TRANSMIT_COMPLETE}/{@code FI_DELIVERY_COMPLETE}/
 * {@code FI_MATCH_COMPLETE} (flag bit 2, R11). Posts take the connection's lock.
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

    private final TcpConnection conn;
    private final Object lock;
    private final TcpTransmitter tx;
    private final DataPathBindings bound;
    private final long caps;

    TcpMessageInitiator(TcpConnection conn) {
        this.conn = conn;
        this.lock = conn.lock;
        this.tx = conn.tx;
        this.bound = conn.bound;
        this.caps = conn.caps;
    }

    /** {@code fi_send}: completes on the write, or on the ack with FI_*_COMPLETE op flags (R11). */
    int send(ByteBuffer buf, MemoryRegion desc, long destAddr, Object context) {
        return post(buf, null, 0, false, 0, conn.txOpFlags | bound.txCompletion(), context, OP_MSG, 0);
    }

    /** {@code fi_senddata}: a send carrying 8 bytes of remote CQ data (flag bit 0). */
    int sendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, Object context) {
        return post(buf, null, 0, true, data, conn.txOpFlags | bound.txCompletion(), context, OP_MSG, 0);
    }

    /** {@code fi_inject}: at most 128 bytes, copied; no completion. */
    int inject(ByteBuffer buf, long destAddr) {
        return post(buf, null, 0, false, 0, Fi.FI_INJECT, null, OP_MSG, 0);
    }

    /** {@code fi_injectdata}. */
    int injectData(ByteBuffer buf, long data, long destAddr) {
        return post(buf, null, 0, true, data, Fi.FI_INJECT, null, OP_MSG, 0);
    }

    /**
     * {@code fi_sendmsg}: flags {@code FI_REMOTE_CQ_DATA}, {@code FI_INJECT},
     * {@code FI_COMPLETION}, {@code FI_TRANSMIT_COMPLETE}/{@code FI_DELIVERY_COMPLETE}
     * (acked, R11), {@code FI_INJECT_COMPLETE}, {@code FI_FENCE}/{@code FI_MORE} (ordered anyway).
     */
    int sendMsg(Msg msg, long flags) {
        if (msg == null) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.SEND_MSG_FLAGS);
        if (rc != 0) {
            return rc;
        }
        return post(null, msg, msg.iovCount(), (flags & Fi.FI_REMOTE_CQ_DATA) != 0, msg.data(),
                flags | bound.txCompletion(), msg.context(), OP_MSG, 0);
    }

    /** {@code fi_tsend}: a tagged message (op 1 with the tag extension); completion {@code FI_TAGGED|FI_SEND}. */
    int tsend(ByteBuffer buf, MemoryRegion desc, long destAddr, long tag, Object context) {
        if ((caps & Fi.FI_TAGGED) == 0) {
            return -Errno.ENOSYS;
        }
        return post(buf, null, 0, false, 0, conn.txOpFlags | bound.txCompletion(), context, OP_TAGGED, tag);
    }

    /** {@code fi_tsenddata}: tagged, with remote CQ data. */
    int tsendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long tag, Object context) {
        if ((caps & Fi.FI_TAGGED) == 0) {
            return -Errno.ENOSYS;
        }
        return post(buf, null, 0, true, data, conn.txOpFlags | bound.txCompletion(), context, OP_TAGGED, tag);
    }

    /** {@code fi_tinject}: tagged, at most 128 bytes, copied; no completion. */
    int tinject(ByteBuffer buf, long destAddr, long tag) {
        if ((caps & Fi.FI_TAGGED) == 0) {
            return -Errno.ENOSYS;
        }
        return post(buf, null, 0, false, 0, Fi.FI_INJECT, null, OP_TAGGED, tag);
    }

    /** {@code fi_tsendmsg}: as {@link #sendMsg} with the message's tag. */
    int tsendMsg(TaggedMsg msg, long flags) {
        if ((caps & Fi.FI_TAGGED) == 0) {
            return -Errno.ENOSYS;
        }
        if (msg == null) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.SEND_MSG_FLAGS);
        if (rc != 0) {
            return rc;
        }
        return post(null, msg, msg.iovCount(), (flags & Fi.FI_REMOTE_CQ_DATA) != 0, msg.data(),
                flags | bound.txCompletion(), msg.context(), OP_TAGGED, msg.tag());
    }

    private int post(ByteBuffer buf, Msg msg, int iovCount, boolean withData, long data, long flags,
                     Object context, int wireOp, long tag) {
        synchronized (lock) {
            if (msg != null && (iovCount < 0 || iovCount > TcpProvider.IOV_LIMIT)) {
                return -Errno.EINVAL;
            }
            long length;
            if (msg == null) {
                if (buf == null) {
                    return -Errno.EINVAL;
                }
                length = buf.remaining();
            } else {
                length = iovLength(msg, iovCount);
                if (length < 0) {
                    return (int) length;
                }
            }
            boolean inject = (flags & Fi.FI_INJECT) != 0;
            int bad = PostChecks.transmit(length, inject, TcpProvider.INJECT_SIZE, TcpProvider.MAX_MSG_SIZE);
            if (bad != 0) {
                return bad;
            }
            boolean reports = !(inject && msg == null); // fi_inject never completes; sendMsg(FI_INJECT) may
            int rc = tx.admit(reports);
            if (rc != 0) {
                return rc;
            }
            TcpTransmitOp op = tx.start(TcpTransmitOp.SEND, context, reports, flags,
                    wireOp == OP_TAGGED ? TSEND_FLAGS : SEND_FLAGS, length);
            op.ackWanted = (flags & ACK_LEVELS) != 0;
            int wireFlags = (withData ? FLAG_REMOTE_CQ_DATA : 0) | (op.ackWanted ? FLAG_DELIVERY_COMPLETE : 0);
            if (conn.jofiPeer && (flags & Fi.FI_MATCH_COMPLETE) != 0) {
                wireFlags |= TcpWireDescriptor.FLAG_JOFI_MATCH_COMPLETE; // ack only once matched
            }
            ByteBuffer h = op.header;
            h.clear();
            tx.header.clear().op(wireOp).flags(wireFlags).payloadLength(length);
            if (withData) {
                tx.header.cqData(data);
            }
            if (wireOp == OP_TAGGED) {
                tx.header.tag(tag);
            }
            tx.header.encode(h);
            if (length <= TcpProvider.INJECT_SIZE) {
                // A small message travels as one contiguous frame (one plain write): its bytes
                // are copied now, which every completion level allows (the buffer is free at
                // return, as for inject).
                copyBehindHeader(op, buf, msg, iovCount);
                h.flip();
                op.count = 1;
                return tx.queue(op);
            }
            h.flip();
            attachPayload(op, buf, msg, iovCount, inject);
            return tx.queue(op);
        }
    }

    /**
     * The bytes of a message's first {@code iovCount} iovs, or {@code -EINVAL} when one of
     * them is missing (the caller checked {@code iovCount} against the limit).
     */
    static long iovLength(Msg msg, int iovCount) {
        long length = 0;
        for (int i = 0; i < iovCount; i++) {
            ByteBuffer b = msg.iov(i);
            if (b == null) {
                return -Errno.EINVAL;
            }
            length += b.remaining();
        }
        return length;
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
                gatherInto(op, msg, iovCount);
            }
            op.count = 2;
        } else if (msg == null) {
            op.payload(0, buf);
            op.count = 2;
        } else {
            for (int i = 0; i < iovCount; i++) {
                op.payload(i, msg.iov(i));
            }
            op.count = 1 + iovCount;
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

    /** Copies a message's iovs into the op's inject buffer (FI_INJECT: the caller's buffers are free at return). */
    private static void gatherInto(TcpTransmitOp op, Msg msg, int iovCount) {
        op.injectCopy.clear();
        for (int i = 0; i < iovCount; i++) {
            ByteBuffer b = msg.iov(i);
            op.injectCopy.put(op.injectCopy.position(), b, b.position(), b.remaining());
            op.injectCopy.position(op.injectCopy.position() + b.remaining());
        }
        op.injectCopy.flip();
        op.gather[1] = op.injectCopy;
    }
}
