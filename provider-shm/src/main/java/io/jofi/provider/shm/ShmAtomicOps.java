package io.jofi.provider.shm;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.spi.util.AtomicTable;
import io.jofi.spi.util.Atomics;
import io.jofi.spi.util.MemoryRegistry;
import io.jofi.spi.util.UtilCounter;
import io.jofi.spi.util.UtilMemoryRegion;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * Carries out atomic operations on 64-bit words, on both sides: as initiator it applies the
 * operation directly to an aligned word of a region its peer's domain publishes (one-sided,
 * through {@link Atomics} on the mapping), or sends an ATOMIC_REQ for the target's progress;
 * as target it applies an ATOMIC_REQ to one of its regions ({@link Atomics}) and answers with
 * the old value (ATOMIC_RESP), which the initiator writes into the fetch buffer.
 *
 * <p>Values are in host order (fi_atomic(3)). A misaligned target word is served target-side.
 * A memory fault on a peer's mapping fails that peer ({@link MappingFaults}); the mapping is
 * probed before the atomic, so a CAS never runs on a mapping already truncated. Runs under
 * the endpoint's lock.
 */
final class ShmAtomicOps {
    private final ShmOwnRing own;
    private final ShmPeers peers;
    private final ShmTransmitter transmitter;
    /** Tells the target of a one-sided atomic that counts remote accesses ({@link ShmRma#notifyDirect}). */
    private final ShmRma rma;
    private final ShmBindings bound;
    /** This domain's registrations: the target side's check of a key and range. */
    private final MemoryRegistry registry;
    private final Path dir;
    /** A TYPED ATOMIC_REQ's operands (0), compare values (8) and old elements (16); the target's progress only. */
    private final ByteBuffer typedScratch = ByteBuffer.allocateDirect(24);

    ShmAtomicOps(ShmOwnRing own, ShmPeers peers, ShmTransmitter transmitter, ShmRma rma, ShmBindings bound,
                 MemoryRegistry registry, Path dir) {
        this.own = own;
        this.peers = peers;
        this.transmitter = transmitter;
        this.rma = rma;
        this.bound = bound;
        this.registry = registry;
        this.dir = dir;
    }

    /**
     * What a typed atomic may carry ({@code fi_query_atomic}): {@link AtomicTable}'s pairs but
     * {@code FI_DOUBLE_COMPLEX} (16 bytes have no compare-and-swap shared between processes), up
     * to the 8 bytes a TYPED ATOMIC_REQ holds ({@link ShmRecordDescriptor#TYPED_BYTES}).
     */
    static int count(int datatype, int op, long kind) {
        return AtomicTable.count(datatype, op, kind, ShmRecordDescriptor.TYPED_BYTES);
    }

    /**
     * A typed {@code fi_atomic} / {@code fi_fetch_atomic} / {@code fi_compare_atomic}
     * ({@link io.jofi.spi.util.UtilEndpoint} checked the pair, count and buffers): applied
     * directly to the peer's mapping when every element there can be swapped lock-free
     * ({@link AtomicTable#lockFree}), else sent as a TYPED ATOMIC_REQ. 0 or a negative errno.
     */
    int postTyped(long kind, int datatype, int aop, int count, ByteBuffer buf, ByteBuffer compare, ByteBuffer result,
                  long peerAddr, long addr, long key, long flags, Object context) {
        return atomic(true, datatype, aop, count, 0, 0, buf, compare, kind != 0 ? result : null, peerAddr, addr, key,
                flags, context);
    }

    /**
     * {@code fi_atomic}, {@code fi_fetch_atomic}, {@code fi_compare_atomic} (a {@code result}
     * buffer for the fetching ones; {@link io.jofi.spi.util.UtilEndpoint} checked it); 0 or a
     * negative errno (nothing posted then).
     */
    int post(int aop, long operand, long compare, ByteBuffer result, long peerAddr, long addr, long key, long flags,
             Object context) {
        if (!Atomics.supported(aop)) {
            return -Errno.EOPNOTSUPP; // an operation not offered (docs/ERRORS.md)
        }
        if (result == null && (aop == Fi.FI_CSWAP || aop == Fi.FI_ATOMIC_READ)) {
            return -Errno.EINVAL; // these return a value: fetchAtomic / compareAtomic
        }
        return atomic(false, Fi.FI_INT64, aop, 1, operand, compare, null, null, result, peerAddr, addr, key, flags,
                context);
    }

    /**
     * The one path of both forms: the endpoint enabled, the peer admitted (a failed peer's
     * atomic completes with its error), then applied on the peer's mapping when nothing of that
     * peer is queued before it and the target word(s) can be swapped there, else queued as an
     * ATOMIC_REQ. A 64-bit atomic ({@code typed} false) takes {@code operand} and
     * {@code compareValue} and needs an aligned word; a typed one the {@code count} elements of
     * {@code datatype} in {@code buf} and {@code compare}. {@code result} is null unless it fetches.
     */
    private int atomic(boolean typed, int datatype, int aop, int count, long operand, long compareValue,
                       ByteBuffer buf, ByteBuffer compare, ByteBuffer result, long peerAddr, long addr, long key,
                       long flags, Object context) {
        boolean fetch = result != null;
        if (!own.enabled()) {
            return -Errno.EOPBADSTATE;
        }
        ShmTransmitter tx = transmitter;
        Peer peer = peers.peerFor(peerAddr);
        int rc = tx.admit(peer, true);
        long cqFlags = Fi.FI_ATOMIC | (fetch ? Fi.FI_READ : Fi.FI_WRITE);
        UtilCounter counter = fetch ? bound.readCntr : bound.writeCntr;
        if (rc == ShmTransmitter.PEER_FAILED) {
            return tx.failLocally(true, context, cqFlags, peer.failed, counter);
        }
        if (rc != 0) {
            return rc;
        }
        int bytes = typed ? count * AtomicTable.size(datatype) : Long.BYTES;
        long need = Atomics.access(aop, fetch);
        if (peer.queue.isEmpty() && peer.outstanding == 0) {
            Peer.Direct d = peer.direct(dir, key, addr, bytes, need);
            if (d != null) {
                int at = (int) (addr - d.base);
                if (typed ? AtomicTable.lockFree(d.map, at, datatype, count) : d.map.alignmentOffset(at, 8) == 0) {
                    long old = 0;
                    try {
                        MappingFaults.check(d.map); // never an atomic on a truncated file (MappingFaults)
                        if (typed) {
                            AtomicTable.apply(datatype, aop, d.map, at, count, buf, buf == null ? 0 : buf.position(),
                                    compare, compare == null ? 0 : compare.position(), result,
                                    result == null ? 0 : result.position());
                        } else {
                            old = Atomics.apply(d.map, at, aop, operand, compareValue);
                        }
                        MappingFaults.check(d.map);
                    } catch (InternalError e) {
                        return directFailed(e, peer, d, context, cqFlags, counter);
                    }
                    if (fetch && !typed) {
                        // the result in host order (fi_atomic), without touching the caller's buffer order
                        result.putLong(result.position(),
                                result.order() == ByteOrder.nativeOrder() ? old : Long.reverseBytes(old));
                    }
                    return directDone(peer, aop, flags, context, cqFlags, counter);
                }
            } else if (peer.directError != 0) {
                return tx.failLocally(true, context, cqFlags, peer.directError, counter);
            }
        }
        ShmOutboundOp op = tx.start(ShmRecordDescriptor.ATOMIC_REQ, peer, context, true, flags, cqFlags,
                fetch ? Fi.FI_READ : Fi.FI_WRITE);
        op.awaitsAnswer = true;
        op.wireFlags = (typed ? ShmRecordDescriptor.TYPED : 0) | (fetch ? ShmRecordDescriptor.FETCH : 0);
        op.a = key;
        op.b = addr;
        op.c = !typed ? operand : buf == null ? 0 : AtomicTable.pack(buf, buf.position(), bytes);
        op.d = !typed ? compareValue : compare == null ? 0 : AtomicTable.pack(compare, compare.position(), bytes);
        op.e = typed ? aop | datatype << 8 | (long) count << 16 : aop;
        if (fetch) {
            op.dest(result, result.position(), bytes);
        }
        tx.queue(peer, op);
        return 0;
    }

    /** An ATOMIC_REQ on one of our regions: applied ({@link Atomics}), counted, answered with the old value or the error. */
    void onRequest(Peer p, ShmRecord r) {
        int aop = r.atomicOp();
        boolean fetch = r.has(ShmRecordDescriptor.FETCH);
        long token = r.token();
        ShmTransmitter tx = transmitter;
        boolean typed = r.has(ShmRecordDescriptor.TYPED);
        int datatype = typed ? aop >>> 8 & 0xff : Fi.FI_INT64;
        int count = typed ? aop >>> 16 & 0xffff : 1;
        aop = typed ? aop & 0xff : aop;
        long kind = !fetch ? 0 : aop >= Fi.FI_CSWAP ? Fi.FI_COMPARE_ATOMIC : Fi.FI_FETCH_ATOMIC;
        int limit = typed ? count(datatype, aop, kind) : 1;
        if (typed ? limit < 0 || count < 1 || count > limit : !Atomics.supported(aop)) {
            tx.sendAnswer(p, ShmRecordDescriptor.ATOMIC_RESP, token, Errno.EOPNOTSUPP, 0, 0);
            return;
        }
        long key = r.rmaKey();
        long need = Atomics.access(aop, fetch);
        int bytes = count * AtomicTable.size(datatype);
        long idx = registry.targetIndex(key, r.rmaAddr(), bytes, need);
        UtilMemoryRegion region = idx < 0 ? null : registry.lookup(key);
        if (region == null) {
            tx.sendAnswer(p, ShmRecordDescriptor.ATOMIC_RESP, token, idx < 0 ? (int) -idx : Errno.ENOKEY, 0, 0);
            return;
        }
        long old;
        if (typed) {
            ByteBuffer t = typedScratch;
            AtomicTable.unpack(r.atomicOperand(), t, 0, bytes);
            AtomicTable.unpack(r.atomicCompare(), t, 8, bytes);
            AtomicTable.apply(datatype, aop, region.buffer(), (int) idx, count, t, 0, t, 8, t, 16);
            old = AtomicTable.pack(t, 16, bytes);
        } else {
            old = Atomics.apply(region.buffer(), (int) idx, aop, r.atomicOperand(), r.atomicCompare());
        }
        if ((need & Fi.FI_REMOTE_WRITE) != 0) {
            ShmBindings.count(bound.remoteWriteCntr);
        } else {
            ShmBindings.count(bound.remoteReadCntr);
        }
        tx.sendAnswer(p, ShmRecordDescriptor.ATOMIC_RESP, token, 0, old, 0);
    }

    /** The ATOMIC_RESP to our request: the old value into the fetch buffer (host order), or the error. */
    void onResponse(Peer p, ShmRecord r) {
        ShmTransmitter tx = transmitter;
        ShmOutboundOp op = tx.answered(p, r.token());
        if (op == null) {
            return;
        }
        int status = r.status();
        if (status != 0) {
            tx.fail(op, status > 0 ? status : Errno.EIO);
            return;
        }
        if (op.dstCount > 0) {
            ByteBuffer b = op.dst[0];
            int i = op.dstStarts[0];
            long v = r.atomicOld();
            if ((op.wireFlags & ShmRecordDescriptor.TYPED) != 0) {
                AtomicTable.unpack(v, b, i, op.dstLengths[0]);
            } else if (b.order() == ByteOrder.nativeOrder()) {
                b.putLong(i, v);
            } else {
                b.putLong(i, Long.reverseBytes(v));
            }
        }
        tx.complete(op);
    }

    /**
     * A one-sided atomic on the peer's mapping failed ({@code InternalError}: the peer truncated
     * the file under it, SIGBUS): the mapping is forgotten, the peer failed when it was a mapping
     * fault, and the operation completes with {@code EIO}.
     */
    private int directFailed(InternalError e, Peer peer, Peer.Direct d, Object context, long cqFlags,
                             UtilCounter counter) {
        peer.forget(d);
        if (MappingFaults.isFault(e)) {
            peers.failPeer(peer, Errno.EIO);
        }
        return transmitter.failLocally(true, context, cqFlags, Errno.EIO, counter);
    }

    /** A one-sided atomic was applied: the target is told when it counts remote accesses; it completes. */
    private int directDone(Peer peer, int aop, long flags, Object context, long cqFlags, UtilCounter counter) {
        if (peer.wantsEvents(dir)) {
            rma.notifyDirect(peer, aop != Fi.FI_ATOMIC_READ, false, 0);
        }
        return transmitter.completedDirect(true, flags, context, cqFlags, counter);
    }
}
