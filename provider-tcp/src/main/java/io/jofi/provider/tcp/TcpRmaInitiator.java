package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.wire.TcpWireDescriptor.FLAG_DELIVERY_COMPLETE;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.FLAG_REMOTE_CQ_DATA;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_ATOMIC_REQUEST;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_READ_REQUEST;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_WRITE;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.RmaMsg;
import io.jofi.provider.tcp.wire.MessageHeader;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
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
 * with an error completion instead of completing before the target looked at it. Posts take
 * the connection's lock.
 */
final class TcpRmaInitiator {
    private static final long WRITE_FLAGS = Fi.FI_RMA | Fi.FI_WRITE;
    private static final long READ_FLAGS = Fi.FI_RMA | Fi.FI_READ;

    private final TcpConnection conn;
    private final Object lock;
    private final TcpTransmitter tx;
    private final DataPathBindings bound;
    private final long caps;
    /** Where an atomic response's payload goes ({@link #atomicIn}; its own view, never re-made). */
    private final RxOp atomicSink = new RxOp();
    /** An atomic response's payload: the old value. */
    private final ByteBuffer atomicIn = ByteBuffer.allocateDirect(TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD)
            .order(ByteOrder.BIG_ENDIAN);

    TcpRmaInitiator(TcpConnection conn) {
        this.conn = conn;
        this.lock = conn.lock;
        this.tx = conn.tx;
        this.bound = conn.bound;
        this.caps = conn.caps;
    }

    // =================================================================== reads

    /** {@code fi_read}: op 2 request; completes ({@code FI_RMA|FI_READ}) when the op 3 response is placed. */
    int read(ByteBuffer buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context) {
        if ((caps & Fi.FI_RMA) == 0) {
            return -Errno.ENOSYS;
        }
        int rc = PostChecks.landing(buf, null, 0, 0, TcpProvider.MAX_MSG_SIZE);
        if (rc != 0) {
            return rc;
        }
        synchronized (lock) {
            return postRead(buf, null, 0, buf.remaining(), addr, key, null, context,
                    conn.txOpFlags | bound.txCompletion());
        }
    }

    /** {@code fi_readmsg}: local iovs, up to 4 remote descriptors. */
    int readMsg(RmaMsg msg, long flags) {
        long local = rmaMsgLength(msg, 1);
        if (local < 0) {
            return (int) local;
        }
        int rc = PostChecks.flags(flags, PostChecks.READ_MSG_FLAGS);
        if (rc == 0) {
            rc = PostChecks.landing(null, msg, msg.iovCount(), 0, TcpProvider.MAX_MSG_SIZE);
        }
        if (rc != 0) {
            return rc;
        }
        synchronized (lock) {
            return postRead(null, msg, msg.iovCount(), local, 0, 0, msg, msg.context(), flags | bound.txCompletion());
        }
    }

    /**
     * The local bytes of an RMA message ({@code fi_readmsg}, {@code fi_writemsg}):
     * {@code -ENOSYS} without {@code FI_RMA}; {@code -EINVAL} without a message, with fewer than
     * {@code minIovs} or more than {@link TcpProvider#IOV_LIMIT} iovs, or with one missing.
     */
    private long rmaMsgLength(RmaMsg msg, int minIovs) {
        if ((caps & Fi.FI_RMA) == 0) {
            return -Errno.ENOSYS;
        }
        if (msg == null || msg.iovCount() < minIovs || msg.iovCount() > TcpProvider.IOV_LIMIT) {
            return -Errno.EINVAL;
        }
        return TcpMessageInitiator.iovLength(msg, msg.iovCount());
    }

    private int postRead(ByteBuffer buf, Msg local, int iovCount, long length, long addr, long key, RmaMsg rma,
                         Object context, long flags) {
        int n = remoteIovCount(rma, length);
        if (n < 0) {
            return n;
        }
        int rc = tx.admit(true);
        if (rc != 0) {
            return rc;
        }
        TcpTransmitOp op = tx.start(TcpTransmitOp.READ, context, true, flags, READ_FLAGS, length);
        RxOp sink = conn.matcher.take();
        if (local == null) {
            sink.buffer(0, buf);
            sink.count = 1;
        } else {
            for (int i = 0; i < iovCount; i++) {
                sink.buffer(i, local.iov(i));
            }
            sink.count = iovCount;
        }
        sink.capacity = length;
        op.sink = sink;
        ByteBuffer h = op.header;
        h.clear();
        tx.header.clear().op(OP_READ_REQUEST).rmaIovCount(n).payloadLength(0);
        putRmaIovs(n, rma, addr, length, key);
        tx.header.encode(h);
        h.flip();
        op.count = 1;
        return tx.queue(op);
    }

    /**
     * The number of remote descriptors of an RMA: {@code rma}'s, or 1 ({@code addr}, {@code key})
     * without a message; {@code -EINVAL} when there are none or too many, or when their lengths
     * do not add up to the local {@code length}; {@code -EMSGSIZE} above max_msg_size.
     */
    private static int remoteIovCount(RmaMsg rma, long length) {
        int n = rma == null ? 1 : rma.rmaIovCount();
        if (n < 1 || n > TcpWireDescriptor.MAX_RMA_IOV_COUNT) {
            return -Errno.EINVAL;
        }
        long remote = 0;
        for (int i = 0; i < n; i++) {
            remote += rma == null ? length : rma.rmaLen(i);
        }
        if (remote != length) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.length(length, TcpProvider.MAX_MSG_SIZE);
        return rc != 0 ? rc : n;
    }

    /** Writes the {@code n} remote descriptors into the transmit header: {@code rma}'s, or the one of {@code addr}/{@code key}. */
    private void putRmaIovs(int n, RmaMsg rma, long addr, long length, long key) {
        for (int i = 0; i < n; i++) {
            if (rma == null) {
                tx.header.rmaIov(i, addr, length, key);
            } else {
                tx.header.rmaIov(i, rma.rmaAddr(i), rma.rmaLen(i), rma.rmaKey(i));
            }
        }
    }

    /** A read response (op 3): the oldest read gets it (responses come in order), straight into its buffers. */
    void onReadResponse(MessageHeader h) {
        TcpTransmitOp op = tx.readAnswered();
        if (op == null) {
            conn.malformed("a response nobody asked for");
            return;
        }
        InboundFrame f = conn.frame;
        f.responseFor = op;
        RxOp sink = op.sink;
        if (h.payloadLength() != sink.capacity) {
            conn.malformed("a read response of another length than requested");
            return;
        }
        sink.trimTo(sink.capacity);
        f.payloadInto(sink, sink.capacity, InboundFrame.READ_RESPONSE);
    }

    /** The read's data is placed: it completes. */
    void endReadResponse() {
        InboundFrame f = conn.frame;
        TcpTransmitOp r = f.responseFor;
        f.responseFor = null;
        tx.complete(r);
    }

    // =================================================================== writes

    /** {@code fi_write}: op 4 with one descriptor, payload follows; completes ({@code FI_RMA|FI_WRITE}) on the ack. */
    int write(ByteBuffer buf, MemoryRegion desc, long destAddr, long addr, long key, Object context) {
        return writeBuf(buf, false, 0, addr, key, context, conn.txOpFlags | bound.txCompletion());
    }

    /**
     * {@code fi_writedata}: a write whose target gets a completion on its receive CQ with
     * {@code FI_RMA|FI_REMOTE_WRITE|FI_REMOTE_CQ_DATA} and the data (no posted receive used).
     */
    int writeData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long addr, long key, Object context) {
        return writeBuf(buf, true, data, addr, key, context, conn.txOpFlags | bound.txCompletion());
    }

    /** {@code fi_inject_write}: at most 128 bytes, copied; no completion, no ack. */
    int injectWrite(ByteBuffer buf, long destAddr, long addr, long key) {
        return writeBuf(buf, false, 0, addr, key, null, Fi.FI_INJECT);
    }

    /** A write of one buffer to one remote descriptor ({@code fi_write}, {@code fi_writedata}, {@code fi_inject_write}). */
    private int writeBuf(ByteBuffer buf, boolean withData, long data, long addr, long key, Object context, long flags) {
        if ((caps & Fi.FI_RMA) == 0) {
            return -Errno.ENOSYS;
        }
        if (buf == null) {
            return -Errno.EINVAL;
        }
        synchronized (lock) {
            return postWrite(buf, null, 0, buf.remaining(), withData, data, addr, key, null, context, flags);
        }
    }

    /**
     * {@code fi_writemsg}: flags {@code FI_REMOTE_CQ_DATA}, {@code FI_INJECT},
     * {@code FI_COMPLETION}, {@code FI_COMMIT_COMPLETE} (flag bit 3, treated as delivery),
     * {@code FI_FENCE} (one ordered stream: earlier operations are handled first anyway).
     */
    int writeMsg(RmaMsg msg, long flags) {
        long length = rmaMsgLength(msg, 0);
        if (length < 0) {
            return (int) length;
        }
        int rc = PostChecks.flags(flags, PostChecks.WRITE_MSG_FLAGS);
        if (rc != 0) {
            return rc;
        }
        synchronized (lock) {
            return postWrite(null, msg, msg.iovCount(), length, (flags & Fi.FI_REMOTE_CQ_DATA) != 0, msg.data(), 0, 0,
                    msg, msg.context(), flags | bound.txCompletion());
        }
    }

    private int postWrite(ByteBuffer buf, Msg local, int iovCount, long length, boolean withData, long data, long addr,
                          long key, RmaMsg rma, Object context, long flags) {
        int n = remoteIovCount(rma, length);
        if (n < 0) {
            return n;
        }
        boolean inject = (flags & Fi.FI_INJECT) != 0;
        int bad = PostChecks.transmit(length, inject, TcpProvider.INJECT_SIZE, TcpProvider.MAX_MSG_SIZE);
        if (bad != 0) {
            return bad;
        }
        boolean reports = !(inject && rma == null);
        int rc = tx.admit(reports);
        if (rc != 0) {
            return rc;
        }
        TcpTransmitOp op = tx.start(TcpTransmitOp.WRITE, context, reports, flags, WRITE_FLAGS, length);
        op.ackWanted = reports;
        int wireFlags = (withData ? FLAG_REMOTE_CQ_DATA : 0) | (op.ackWanted ? FLAG_DELIVERY_COMPLETE : 0)
                | ((flags & Fi.FI_COMMIT_COMPLETE) != 0 ? TcpWireDescriptor.FLAG_COMMIT_COMPLETE : 0);
        ByteBuffer h = op.header;
        h.clear();
        tx.header.clear().op(OP_WRITE).flags(wireFlags).rmaIovCount(n).payloadLength(length);
        if (withData) {
            tx.header.cqData(data);
        }
        putRmaIovs(n, rma, addr, length, key);
        tx.header.encode(h);
        h.flip();
        TcpMessageInitiator.attachPayload(op, buf, local, iovCount, inject);
        return tx.queue(op);
    }

    // =================================================================== atomics

    /** {@code fi_atomic} on a 64-bit word; completion {@code FI_ATOMIC|FI_WRITE} when the target answered. */
    int atomic(long operand, long destAddr, long addr, long key, int op, Object context) {
        if ((caps & Fi.FI_ATOMIC) == 0) {
            return -Errno.ENOSYS;
        }
        synchronized (lock) {
            return postAtomic(op, operand, 0, null, addr, key, context, false);
        }
    }

    /** {@code fi_fetch_atomic}: the old value goes to {@code result} (host order); completion {@code FI_ATOMIC|FI_READ}. */
    int fetchAtomic(long operand, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                    int op, Object context) {
        if ((caps & Fi.FI_ATOMIC) == 0) {
            return -Errno.ENOSYS;
        }
        if (PostChecks.writable(result) != 0 || result.remaining() < Long.BYTES) {
            return -Errno.EINVAL;
        }
        synchronized (lock) {
            return postAtomic(op, operand, 0, result, addr, key, context, true);
        }
    }

    /** {@code fi_compare_atomic} ({@code FI_CSWAP}): swaps in {@code swap} when the word equals {@code compare}. */
    int compareAtomic(long compare, long swap, ByteBuffer result, MemoryRegion resultDesc, long destAddr,
                      long addr, long key, Object context) {
        if ((caps & Fi.FI_ATOMIC) == 0) {
            return -Errno.ENOSYS;
        }
        if (PostChecks.writable(result) != 0 || result.remaining() < Long.BYTES) {
            return -Errno.EINVAL;
        }
        synchronized (lock) {
            return postAtomic(Fi.FI_CSWAP, swap, compare, result, addr, key, context, true);
        }
    }

    /**
     * An atomic request (JOFI op 5). libfabric's tcp wire has no atomics, so only a peer that
     * announced JOFI in the CM handshake can take one: any other peer gets
     * {@code -EOPNOTSUPP}, as does an op this provider does not implement.
     */
    private int postAtomic(int atomicOp, long operand, long compare, ByteBuffer result, long addr, long key,
                           Object context, boolean fetch) {
        int rc = tx.check(true);
        if (rc != 0) {
            return rc;
        }
        if (!conn.jofiPeer || !Atomics.supported(atomicOp)) {
            return -Errno.EOPNOTSUPP;
        }
        rc = bound.txCq.reserve();
        if (rc != 0) {
            return rc;
        }
        TcpTransmitOp op = tx.start(fetch ? TcpTransmitOp.ATOMIC_FETCH : TcpTransmitOp.ATOMIC, context, true,
                conn.txOpFlags | bound.txCompletion(), Fi.FI_ATOMIC | (fetch ? Fi.FI_READ : Fi.FI_WRITE), Long.BYTES);
        op.result = result;
        ByteBuffer h = op.header;
        h.clear();
        tx.header.clear().op(OP_ATOMIC_REQUEST).rmaIovCount(1)
                .rmaIov(0, addr, Long.BYTES, key).payloadLength(TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD);
        tx.header.encode(h);
        h.flip();
        ByteBuffer p = op.injectCopy;
        p.clear();
        p.putLong(0, atomicOp | (fetch ? TcpWireDescriptor.ATOMIC_FETCH : 0)); // a direct buffer is big-endian: the header's order
        p.putLong(8, operand);
        p.putLong(16, compare);
        p.limit(TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD);
        op.gather[1] = p;
        op.count = 2;
        return tx.queue(op);
    }

    /** An atomic response (op 6): the oldest atomic gets it; its old value is read into {@link #atomicIn}. */
    void onAtomicResponse(MessageHeader h) {
        TcpTransmitOp op = tx.atomicAnswered();
        if (op == null) {
            conn.malformed("a response nobody asked for");
            return;
        }
        InboundFrame f = conn.frame;
        f.responseFor = op;
        if (h.payloadLength() != TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD) {
            conn.malformed("an atomic response of the wrong length");
            return;
        }
        f.ack = false;
        atomicSink.range(0, atomicIn, 0, TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD);
        atomicSink.count = 1;
        atomicSink.first = 0;
        f.payloadInto(atomicSink, TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD, InboundFrame.ATOMIC_RESPONSE);
    }

    /** The old value arrived: into the caller's result buffer (its order), and the atomic completes. */
    void endAtomicResponse() {
        InboundFrame f = conn.frame;
        TcpTransmitOp a = f.responseFor;
        f.responseFor = null;
        if (a.result != null) {
            a.result.putLong(a.result.position(), atomicIn.getLong(0)); // the caller's buffer order
        }
        tx.complete(a);
    }
}
