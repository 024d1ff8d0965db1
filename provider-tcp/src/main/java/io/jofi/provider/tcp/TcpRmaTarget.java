package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_ATOMIC_RESPONSE;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.OP_READ_RESPONSE;

import io.jofi.Fi;
import io.jofi.provider.tcp.wire.MessageHeader;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import io.jofi.spi.util.AtomicTable;
import io.jofi.spi.util.Atomics;
import io.jofi.spi.util.MemoryRegistry;
import io.jofi.spi.util.UtilCounter;
import io.jofi.spi.util.UtilMemoryRegion;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The target side of RMA and atomics on a tcp connection: the peer's writes (op 4) are read
 * straight into registered regions, its read requests (op 2) answered with a response (op 3)
 * gathered from them, its JOFI atomic requests (op 5) applied with {@link Atomics} and answered
 * (op 6). Every descriptor is checked against the domain's {@link MemoryRegistry} (key, bounds,
 * access) before any byte of a region is touched; a refused one is peer misbehaviour and ends
 * the connection (README "Failure model"). Guarded by the connection's lock.
 */
final class TcpRmaTarget {
    private static final long REMOTE_WRITE_FLAGS = Fi.FI_RMA | Fi.FI_REMOTE_WRITE | Fi.FI_REMOTE_CQ_DATA;

    /** What the target asks of the read side it is called from (the connection passes it on). */
    interface Link extends TcpPeerLink {
        /** The frame asks for an ack: it gets a place in the ack order; false when far too many are owed (malformed). */
        boolean assignAck(boolean wanted);

        /** Publishes the receive completions the read pass staged, before the target writes one directly. */
        void flushReceived();

        /** A request's response finds no transmit room: reading stops until it has some. */
        void blockReading();
    }

    private final Link link;
    private final InboundFrame frame;
    private final TcpTransmitter tx;
    private final DataPathBindings bound;
    private final MemoryRegistry registry;
    /** Encodes the headers of the responses (big-endian, docs/TCP-WIRE.md "Byte order"). */
    private final MessageHeader header = new MessageHeader(ByteOrder.BIG_ENDIAN);
    /** Where a write's payload goes: views of the target regions. */
    private final TcpPayloadViews writeSink = new TcpPayloadViews();
    /** Where an atomic request's payload goes ({@link #atomicIn}; its own view, never re-made). */
    private final TcpPayloadViews atomicSink = new TcpPayloadViews();
    /** A typed request's operands (0), compare values (8) and old elements (16). */
    private final ByteBuffer typedScratch = ByteBuffer.allocateDirect(24);
    /** An atomic request's payload: the op word, the operand, the compare value. */
    private final ByteBuffer atomicIn = ByteBuffer.allocateDirect(TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD)
            .order(ByteOrder.BIG_ENDIAN);

    TcpRmaTarget(Link link, TcpTransmitter tx, InboundFrame frame, DataPathBindings bound, MemoryRegistry registry) {
        this.link = link;
        this.frame = frame;
        this.tx = tx;
        this.bound = bound;
        this.registry = registry;
    }

    /**
     * The registered region a peer's descriptor names, checked for {@code access}, or null:
     * an unknown key, a range outside the region or a missing access right is peer
     * misbehaviour (docs/TCP-WIRE.md "Bad input"): the caller tears the connection down before any
     * byte of the region is touched.
     */
    private UtilMemoryRegion region(long key, long addr, long len, long access) {
        UtilMemoryRegion r = registry.lookup(key);
        if (r == null || len > Integer.MAX_VALUE || r.check(addr, len, access) != 0) {
            return null;
        }
        return r;
    }

    /** RMA write (op 4): every descriptor checked, then the payload is read straight into the regions. */
    void onWrite(MessageHeader h) {
        int n = h.rmaIovCount();
        long total = 0;
        TcpPayloadViews sink = writeSink;
        for (int i = 0; i < n; i++) {
            UtilMemoryRegion r = region(h.rmaKey(i), h.rmaAddr(i), h.rmaLen(i), Fi.FI_REMOTE_WRITE);
            if (r == null) {
                link.malformed("an RMA write to memory this domain refuses (key, bounds or access)");
                return;
            }
            sink.range(i, r.buffer(), r.indexOf(h.rmaAddr(i)), (int) h.rmaLen(i));
            total += h.rmaLen(i);
        }
        if (total != h.payloadLength()) {
            link.malformed("an RMA write whose payload length differs from its descriptors");
            return;
        }
        sink.count(n);
        InboundFrame f = frame;
        // the sender is looked up only if a completion reports it (endWrite)
        f.writeArriving(h.hasCqData(), h.hasCqData() ? h.cqData() : 0, total);
        if (!link.assignAck(h.ackRequested() || (h.flags() & TcpWireDescriptor.FLAG_COMMIT_COMPLETE) != 0)) {
            return;
        }
        f.payloadInto(sink, total, InboundFrame.WRITE);
    }

    /** The write's payload is in the region: ack (if asked), count, and report remote CQ data. */
    void endWrite() {
        InboundFrame f = frame;
        long ack = f.ackOwed();
        if (ack >= 0) {
            tx.ackReady(ack);
        }
        if (bound.remoteWriteCntr() != null) {
            bound.remoteWriteCntr().increment();
        }
        if (f.message().hasData() && bound.rxCq() != null) {
            // no posted receive is used: an unsolicited completion (R6 overrun if the CQ is full),
            // after the receive completions this read pass staged before it
            link.flushReceived();
            bound.rxCq().completeUnsolicited(null, REMOTE_WRITE_FLAGS, f.length(), null, 0, f.message().data(), 0,
                    Fi.FI_ADDR_NOTAVAIL);
        }
    }

    /** RMA read request (op 2): descriptors checked, then a response (op 3) with the regions' bytes is queued. */
    void onReadRequest(MessageHeader h) {
        if (h.payloadLength() != 0) {
            link.malformed("an RMA read request that carries a payload");
            return;
        }
        if (tx.isFull()) {
            link.blockReading();
            return;
        }
        int n = h.rmaIovCount();
        TcpTransmitOp op = tx.take();
        long total = 0;
        for (int i = 0; i < n; i++) {
            UtilMemoryRegion r = region(h.rmaKey(i), h.rmaAddr(i), h.rmaLen(i), Fi.FI_REMOTE_READ);
            if (r == null) {
                tx.give(op);
                link.malformed("an RMA read request for memory this domain refuses (key, bounds or access)");
                return;
            }
            op.region(i, r.buffer(), r.indexOf(h.rmaAddr(i)), (int) h.rmaLen(i));
            total += h.rmaLen(i);
        }
        frame.nextHeader();
        op.asResponse();
        ByteBuffer hb = op.header;
        hb.clear();
        header.clear().op(OP_READ_RESPONSE).payloadLength(total).encode(hb);
        hb.flip();
        op.elements(1 + n);
        if (bound.remoteReadCntr() != null) {
            bound.remoteReadCntr().increment();
        }
        tx.queue(op);
    }

    /** JOFI atomic request (op 5): one 8-byte descriptor; its payload is read, then applied in {@link #endAtomicRequest}. */
    void onAtomicRequest(MessageHeader h) {
        if (h.rmaIovCount() != 1 || h.rmaLen(0) < 1 || h.rmaLen(0) > Long.BYTES
                || h.payloadLength() != TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD) {
            link.malformed("a malformed atomic request");
            return;
        }
        if (tx.isFull()) {
            link.blockReading();
            return;
        }
        InboundFrame f = frame;
        f.atomicArriving(h.rmaAddr(0), h.rmaKey(0), (int) h.rmaLen(0));
        atomicSink.range(0, atomicIn, 0, TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD);
        atomicSink.count(1);
        f.payloadInto(atomicSink, TcpWireDescriptor.ATOMIC_REQUEST_PAYLOAD, InboundFrame.ATOMIC_REQUEST);
    }

    /** Applies a JOFI atomic request (one FI_INT64 word, or typed elements) and queues the response with the old value. */
    void endAtomicRequest() {
        long word = atomicIn.getLong(0);
        int aop = (int) (word & 0xFF);
        boolean fetch = (word & TcpWireDescriptor.ATOMIC_FETCH) != 0;
        boolean typed = (word & TcpWireDescriptor.ATOMIC_TYPED) != 0;
        int datatype = typed ? (int) (word >>> 16 & 0xFF) : Fi.FI_INT64;
        int count = typed ? (int) (word >>> 32 & 0xFFFF) : 1;
        long kind = !fetch ? 0 : aop >= Fi.FI_CSWAP ? Fi.FI_COMPARE_ATOMIC : Fi.FI_FETCH_ATOMIC;
        int max = typed ? AtomicTable.count(datatype, aop, kind, TcpWireDescriptor.ATOMIC_TYPED_BYTES) : 1;
        int bytes = count * Math.max(AtomicTable.size(datatype), 0);
        long addr = frame.atomicAddr();
        boolean wellFormed = typed ? max > 0 && count >= 1 && count <= max && bytes == frame.atomicLen()
                : (addr & 7) == 0 && Atomics.supported(aop) && frame.atomicLen() == Long.BYTES;
        UtilMemoryRegion r = !wellFormed ? null : region(frame.atomicKey(), addr, bytes, Atomics.access(aop, fetch));
        if (r == null) {
            link.malformed("an atomic request this domain refuses (key, bounds, access, alignment, op or datatype)");
            return;
        }
        long old;
        if (typed) {
            ByteBuffer t = typedScratch;
            AtomicTable.unpack(atomicIn.getLong(8), t, 0, bytes);
            AtomicTable.unpack(atomicIn.getLong(16), t, 8, bytes);
            AtomicTable.apply(datatype, aop, r.buffer(), r.indexOf(addr), count, t, 0, t, 8, t, 16);
            old = AtomicTable.pack(t, 16, bytes);
        } else {
            old = Atomics.apply(r.buffer(), r.indexOf(addr), aop, atomicIn.getLong(8), atomicIn.getLong(16));
        }
        UtilCounter c = aop == Fi.FI_ATOMIC_READ ? bound.remoteReadCntr() : bound.remoteWriteCntr();
        if (c != null) {
            c.increment();
        }
        TcpTransmitOp op = tx.take();
        op.asResponse();
        ByteBuffer hb = op.header;
        hb.clear();
        header.clear().op(OP_ATOMIC_RESPONSE).payloadLength(TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD).encode(hb);
        hb.flip();
        op.words().putLong(0, old);
        op.wordsPayload(TcpWireDescriptor.ATOMIC_RESPONSE_PAYLOAD);
        tx.queue(op);
    }
}
