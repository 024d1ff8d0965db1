package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.wire.TcpWireDescriptor.FLAG_DELIVERY_COMPLETE;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.FLAG_REMOTE_CQ_DATA;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_ATOMIC_REQUEST;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_READ_REQUEST;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_WRITE;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.RmaMsg;
import io.jofi.provider.tcp.wire.MessageHeader;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import io.jofi.spi.util.AtomicTable;
import io.jofi.spi.util.Atomics;
import io.jofi.spi.util.PostChecks;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The initiator side of RMA and atomics on a tcp connection ({@code fi_rma(3)},
 * {@code fi_atomic(3)}): posts reads (op 2), writes (op 4) and JOFI atomics (op 5), and takes
 * their answers — read responses (op 3) straight into the local buffers, atomic responses
 * (op 6) into the caller's result buffer — in request order. Every write asks for the ack
 * (flag bit 2; R11 allows the stronger level), so that a write the target refuses fails here
 * with an error completion instead of completing before the target looked at it. Posts run
 * under the connection's lock, which counts them.
 */
final class TcpRmaInitiator {
    private static final long WRITE_FLAGS = Fi.FI_RMA | Fi.FI_WRITE;
    private static final long READ_FLAGS = Fi.FI_RMA | Fi.FI_READ;

    private final TcpPeerLink peer;
    private final TcpTransmitter tx;
    /** The frame being read: a response's header and payload. */
    private final InboundFrame frame;
    private final DataPathBindings bound;
    /** Encodes the headers of the requests (big-endian, docs/TCP-WIRE.md "Byte order"). */
    private final MessageHeader header = new MessageHeader(ByteOrder.BIG_ENDIAN);
    /** Where an atomic response's payload goes ({@link #atomicIn}; its own view, never re-made). */
    private final TcpPayloadViews atomicSink = new TcpPayloadViews();
    /** An atomic response's payload: the old value. */
    private final ByteBuffer atomicIn = ByteBuffer.allocateDirect(TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD)
            .order(ByteOrder.BIG_ENDIAN);

    TcpRmaInitiator(TcpPeerLink peer, TcpTransmitter tx, InboundFrame frame, DataPathBindings bound) {
        this.peer = peer;
        this.tx = tx;
        this.frame = frame;
        this.bound = bound;
    }

    // =================================================================== reads

    /**
     * Posts an RMA the endpoint checked ({@link io.jofi.spi.util.UtilEndpoint#postRma}: caps,
     * arguments, flags, lengths, remote segments, the CQ): a read (op 2, completes
     * {@code FI_RMA|FI_READ} when the op 3 response is placed) or a write (op 4, payload
     * follows; completes {@code FI_RMA|FI_WRITE} on the ack, a one-buffer inject never).
     * {@code msg} carries the local iovs and up to 4 remote segments; without it one segment
     * {@code addr}/{@code key} of {@code length} bytes.
     */
    int post(boolean read, ByteBuffer buf, RmaMsg msg, long length, long addr, long key, long data, long flags,
             Object context) {
        int iovCount = msg == null ? 0 : msg.iovCount();
        if (read) {
            return postRead(buf, msg, iovCount, length, addr, key, msg, context, flags);
        }
        return postWrite(buf, msg, iovCount, length, (flags & Fi.FI_REMOTE_CQ_DATA) != 0, data, addr, key, msg, context,
                flags);
    }

    private int postRead(ByteBuffer buf, Msg local, int iovCount, long length, long addr, long key, RmaMsg rma,
                         Object context, long flags) {
        int n = rma == null ? 1 : rma.rmaIovCount();
        int rc = tx.admit(true);
        if (rc != 0) {
            return rc;
        }
        TcpTransmitOp op = tx.start(TcpTransmitOp.READ, context, true, flags, READ_FLAGS, length);
        TcpPayloadViews landing = op.landing();
        if (local == null) {
            landing.buffer(0, buf);
            landing.count(1);
        } else {
            for (int i = 0; i < iovCount; i++) {
                landing.buffer(i, local.iov(i));
            }
            landing.count(iovCount);
        }
        landing.capacity(length);
        ByteBuffer h = op.header;
        h.clear();
        header.clear().op(OP_READ_REQUEST).rmaIovCount(n).payloadLength(0);
        putRmaIovs(n, rma, addr, length, key);
        header.encode(h);
        h.flip();
        op.elements(1);
        return tx.queue(op);
    }

    /** Writes the {@code n} remote descriptors into the transmit header: {@code rma}'s, or the one of {@code addr}/{@code key}. */
    private void putRmaIovs(int n, RmaMsg rma, long addr, long length, long key) {
        for (int i = 0; i < n; i++) {
            if (rma == null) {
                header.rmaIov(i, addr, length, key);
            } else {
                header.rmaIov(i, rma.rmaAddr(i), rma.rmaLen(i), rma.rmaKey(i));
            }
        }
    }

    /** A read response (op 3): the oldest read gets it (responses come in order), straight into its buffers. */
    void onReadResponse(MessageHeader h) {
        TcpTransmitOp op = tx.readAnswered();
        if (op == null) {
            peer.malformed("a response nobody asked for");
            return;
        }
        InboundFrame f = frame;
        f.answering(op);
        TcpPayloadViews landing = op.landing();
        if (h.payloadLength() != landing.capacity()) {
            peer.malformed("a read response of another length than requested");
            return;
        }
        f.payloadInto(landing, landing.capacity(), InboundFrame.READ_RESPONSE);
    }

    /** The read's data is placed: it completes. */
    void endReadResponse() {
        tx.complete(frame.takeResponse());
    }

    // =================================================================== writes

    private int postWrite(ByteBuffer buf, Msg local, int iovCount, long length, boolean withData, long data, long addr,
                          long key, RmaMsg rma, Object context, long flags) {
        int n = rma == null ? 1 : rma.rmaIovCount();
        boolean inject = (flags & Fi.FI_INJECT) != 0;
        boolean reports = PostChecks.reportsToCq(flags); // fi_inject_write never completes
        int rc = tx.admit(reports);
        if (rc != 0) {
            return rc;
        }
        TcpTransmitOp op = tx.start(TcpTransmitOp.WRITE, context, reports, flags, WRITE_FLAGS, length);
        op.askAck(reports);
        int wireFlags = (withData ? FLAG_REMOTE_CQ_DATA : 0) | (reports ? FLAG_DELIVERY_COMPLETE : 0)
                | ((flags & Fi.FI_COMMIT_COMPLETE) != 0 ? TcpWireDescriptor.FLAG_COMMIT_COMPLETE : 0);
        ByteBuffer h = op.header;
        h.clear();
        header.clear().op(OP_WRITE).flags(wireFlags).rmaIovCount(n).payloadLength(length);
        if (withData) {
            header.cqData(data);
        }
        putRmaIovs(n, rma, addr, length, key);
        header.encode(h);
        h.flip();
        TcpMessageInitiator.attachPayload(op, buf, local, iovCount, inject);
        return tx.queue(op);
    }

    // =================================================================== atomics

    /**
     * Posts an atomic the endpoint checked ({@link io.jofi.spi.util.UtilEndpoint#postAtomic}):
     * a JOFI atomic request (op 5) on a 64-bit word, completing {@code FI_ATOMIC|FI_WRITE}, or
     * with a {@code result} buffer (fetching; {@code FI_CSWAP} swaps {@code operand} in when
     * the word equals {@code compare}) {@code FI_ATOMIC|FI_READ}, when the target answered.
     * libfabric's tcp wire has no atomics, so only a peer that announced JOFI in the CM
     * handshake can take one: any other peer gets {@code -EOPNOTSUPP}, as does an op this
     * provider does not implement.
     */
    int atomic(int atomicOp, long operand, long compare, ByteBuffer result, long addr, long key, long flags,
               Object context) {
        int rc = admitAtomic(Atomics.supported(atomicOp));
        if (rc != 0) {
            return rc;
        }
        return queueAtomic(result != null, atomicOp, operand, compare, Long.BYTES, 0, result, addr, key, flags,
                context);
    }

    /**
     * A typed atomic ({@code count} elements of {@code datatype}, at most
     * {@link TcpWireDescriptor#ATOMIC_TYPED_BYTES} bytes; the pair and count checked by
     * {@link io.jofi.spi.util.UtilEndpoint}): the same request frame with the op word's typed
     * bits, the elements packed into the operand and compare words. JOFI peers only.
     */
    int typedAtomic(long kind, int datatype, int atomicOp, int count, ByteBuffer buf, ByteBuffer compare,
                    ByteBuffer result, long addr, long key, long flags, Object context) {
        int rc = admitAtomic(true);
        if (rc != 0) {
            return rc;
        }
        boolean fetch = kind != 0;
        int bytes = count * AtomicTable.size(datatype);
        long opWord = atomicOp | TcpWireDescriptor.ATOMIC_TYPED | (long) datatype << 16 | (long) count << 32;
        return queueAtomic(fetch, opWord, buf == null ? 0 : AtomicTable.pack(buf, buf.position(), bytes),
                compare == null ? 0 : AtomicTable.pack(compare, compare.position(), bytes), bytes, fetch ? bytes : 0,
                result, addr, key, flags, context);
    }

    /**
     * What every atomic passes before it is queued: the transmit state, a peer that speaks JOFI's
     * atomics and an operation offered ({@code supported}), else {@code -EOPNOTSUPP}, then a
     * transmit CQ slot. 0 or the negative errno (nothing reserved then).
     */
    private int admitAtomic(boolean supported) {
        int rc = tx.check(true);
        if (rc != 0) {
            return rc;
        }
        if (!peer.jofiPeer() || !supported) {
            return -Errno.EOPNOTSUPP;
        }
        return bound.txCq().reserve();
    }

    /**
     * Queues an admitted atomic request (op 5): {@code opWord} the operation with its typed bits
     * (the fetch bit added here), {@code operand} and {@code compare} the payload's words,
     * {@code bytes} the remote length, {@code typedResultBytes} the elements a typed fetch
     * unpacks into {@code result} (0: a 64-bit word).
     */
    private int queueAtomic(boolean fetch, long opWord, long operand, long compare, int bytes, int typedResultBytes,
                            ByteBuffer result, long addr, long key, long flags, Object context) {
        TcpTransmitOp op = tx.start(fetch ? TcpTransmitOp.ATOMIC_FETCH : TcpTransmitOp.ATOMIC, context, true,
                flags, Fi.FI_ATOMIC | (fetch ? Fi.FI_READ : Fi.FI_WRITE), bytes);
        op.resultInto(result, typedResultBytes);
        ByteBuffer h = op.header;
        h.clear();
        header.clear().op(OP_ATOMIC_REQUEST).rmaIovCount(1)
                .rmaIov(0, addr, bytes, key).payloadLength(TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD);
        header.encode(h);
        h.flip();
        ByteBuffer p = op.words();
        // a direct buffer is big-endian: the header's order
        p.putLong(0, opWord | (fetch ? TcpWireDescriptor.ATOMIC_FETCH : 0));
        p.putLong(8, operand);
        p.putLong(16, compare);
        op.wordsPayload(TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD);
        return tx.queue(op);
    }

    /** An atomic response (op 6): the oldest atomic gets it; its old value is read into {@link #atomicIn}. */
    void onAtomicResponse(MessageHeader h) {
        TcpTransmitOp op = tx.atomicAnswered();
        if (op == null) {
            peer.malformed("a response nobody asked for");
            return;
        }
        InboundFrame f = frame;
        f.answering(op);
        if (h.payloadLength() != TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD) {
            peer.malformed("an atomic response of the wrong length");
            return;
        }
        atomicSink.range(0, atomicIn, 0, TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD);
        atomicSink.count(1);
        f.payloadInto(atomicSink, TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD, InboundFrame.ATOMIC_RESPONSE);
    }

    /** The old value arrived: into the caller's result buffer (its order), and the atomic completes. */
    void endAtomicResponse() {
        TcpTransmitOp a = frame.takeResponse();
        a.landResult(atomicIn.getLong(0));
        tx.complete(a);
    }
}
