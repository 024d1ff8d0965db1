package io.jofi.provider.shm;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.RmaMsg;
import io.jofi.spi.util.MemoryRegistry;
import io.jofi.spi.util.PostChecks;
import io.jofi.spi.util.UtilCounter;
import io.jofi.spi.util.UtilMemoryRegion;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;

/**
 * Carries out RMA reads and writes, on both sides: as initiator it accesses a target region
 * its peer's domain publishes directly (one-sided, in the mapped memory, then tells the target
 * with a NOTIFY when it counts remote accesses or wants the CQ data), or sends a WRITE /
 * READ_REQ record for the target's progress to serve; as target it places WRITE fragments,
 * answers READ_REQ with READ_RESP fragments, and counts NOTIFYs.
 *
 * <p>A one-sided access is taken only while nothing is queued towards the peer or awaits its
 * answer (so that the order of operations and {@code FI_FENCE} hold). A memory fault on a
 * peer's mapping fails that peer ({@link MappingFaults}). Runs under the endpoint's lock.
 */
final class ShmRma {
    private final ShmPeers peers;
    private final ShmTransmitter transmitter;
    /** The FI_SOURCE address a remote write's CQ data completion reports ({@link ShmReceiver#sourceOf}). */
    private final ShmReceiver receiver;
    private final ShmBindings bound;
    /** This domain's registrations: the target side's check of a key and range. */
    private final MemoryRegistry registry;
    private final Path dir;
    private final long caps;

    ShmRma(ShmPeers peers, ShmTransmitter transmitter, ShmReceiver receiver, ShmBindings bound,
           MemoryRegistry registry, Path dir, long caps) {
        this.peers = peers;
        this.transmitter = transmitter;
        this.receiver = receiver;
        this.bound = bound;
        this.registry = registry;
        this.dir = dir;
        this.caps = caps;
    }

    // =================================================================== initiator

    /**
     * An RMA read or write ({@link io.jofi.spi.util.UtilEndpoint} checked it; one remote
     * segment): one-sided when the target publishes the region, else queued towards the peer;
     * 0 or a negative errno (nothing posted then).
     */
    int post(boolean read, ByteBuffer buf, RmaMsg msg, long length, long peerAddr, long addr, long key, long data,
             long flags, Object context) {
        boolean write = !read;
        int kind = read ? ShmRecordDescriptor.READ_REQ : ShmRecordDescriptor.WRITE;
        boolean withData = (flags & Fi.FI_REMOTE_CQ_DATA) != 0;
        if (msg != null) {
            addr = msg.rmaAddr(0);
            key = msg.rmaKey(0);
        }
        int iovs = msg == null ? 1 : msg.iovCount();
        boolean inject = (flags & Fi.FI_INJECT) != 0;
        ShmTransmitter tx = transmitter;
        Peer peer = peers.peerFor(peerAddr);
        boolean reports = PostChecks.reportsToCq(flags); // fi_inject_write never completes
        int rc = tx.admit(peer, reports);
        long cqFlags = Fi.FI_RMA | (write ? Fi.FI_WRITE : Fi.FI_READ);
        UtilCounter counter = write ? bound.writeCntr : bound.readCntr;
        if (rc == ShmTransmitter.PEER_FAILED) {
            return tx.failLocally(true, context, cqFlags, peer.failed, counter);
        }
        if (rc != 0) {
            return rc;
        }
        boolean commit = (flags & Fi.FI_COMMIT_COMPLETE) != 0;
        // One-sided: the target publishes the region; only when nothing is queued towards the
        // peer ahead of it (so that FI_FENCE and the order of operations hold).
        if (peer.queue.isEmpty() && peer.outstanding == 0) {
            Peer.Direct d = peer.direct(dir, key, addr, length, write ? Fi.FI_REMOTE_WRITE : Fi.FI_REMOTE_READ);
            if (d != null) {
                int at = (int) (addr - d.base);
                try {
                    MappingFaults.check(d.map); // truncated already: fail the peer, touch nothing
                    for (int i = 0; i < iovs; i++) {
                        ByteBuffer b = msg == null ? buf : msg.iov(i);
                        int n = b.remaining();
                        if (write) {
                            d.map.put(at, b, b.position(), n);
                        } else {
                            b.put(b.position(), d.map, at, n);
                        }
                        at += n;
                    }
                    if (write && commit) {
                        d.map.force((int) (addr - d.base), (int) length);
                    }
                    MappingFaults.check(d.map); // a fault of the copy comes out here, not in the caller's code
                } catch (InternalError | java.io.UncheckedIOException e) {
                    // the peer truncated the file under its mapping (SIGBUS) or the force failed
                    peer.forget(d);
                    if (e instanceof InternalError && MappingFaults.isFault(e)) {
                        peers.failPeer(peer, Errno.EIO); // a fault on a peer's mapping fails that peer
                    }
                    return tx.failLocally(reports, context, cqFlags, Errno.EIO, counter);
                }
                VarHandle.fullFence();
                if (withData || peer.wantsEvents(dir)) {
                    notifyDirect(peer, write, withData, data);
                }
                return tx.completedDirect(reports, flags, context, cqFlags, counter);
            }
            if (peer.directError != 0) {
                return tx.failLocally(reports, context, cqFlags, peer.directError, counter);
            }
        }
        ShmOutboundOp op = tx.start(kind, peer, context, reports, flags, cqFlags, write ? Fi.FI_WRITE : Fi.FI_READ);
        op.awaitsAnswer = true;
        op.wireFlags = (withData ? ShmRecordDescriptor.HAS_DATA : 0) | (commit ? ShmRecordDescriptor.COMMIT : 0);
        op.a = key;
        op.b = addr;
        op.e = data;
        if (write) {
            ShmTransmitter.attachPayload(op, buf, msg, iovs, inject);
        } else {
            for (int i = 0; i < iovs; i++) {
                ByteBuffer b = msg == null ? buf : msg.iov(i);
                op.dest(b, b.position(), b.remaining());
            }
            op.c = length;
        }
        tx.queue(peer, op);
        return 0;
    }

    /** Tells the target of a one-sided access: remote counters and remote CQ data (fire and forget). */
    void notifyDirect(Peer peer, boolean write, boolean withData, long data) {
        ShmTransmitter tx = transmitter;
        ShmOutboundOp op = tx.take();
        op.kind = ShmRecordDescriptor.NOTIFY;
        op.peer = peer;
        op.wireFlags = (write ? ShmRecordDescriptor.REMOTE_WRITE : ShmRecordDescriptor.REMOTE_READ)
                | (withData ? ShmRecordDescriptor.HAS_DATA : 0);
        op.e = data;
        tx.enqueue(peer, op);
    }

    /** A READ_RESP fragment (or its error) for our read: placed; the last completes the read. */
    void onReadResponse(Peer p, ShmRecord r) {
        ShmTransmitter tx = transmitter;
        ShmOutboundOp op = tx.awaiting(p, r.token());
        if (op == null || op.kind != ShmRecordDescriptor.READ_REQ) {
            return;
        }
        int status = r.has(ShmRecordDescriptor.BOUNCE) ? 0 : r.status();
        if (status != 0) {
            op.awaitsAnswer = false;
            tx.fail(op, status > 0 ? status : Errno.EIO);
            return;
        }
        long offset = r.fragmentOffset();
        int n = r.payloadLength();
        if (offset < 0 || n > op.destLength() - offset) {
            peers.failPeer(p, Errno.EPROTO);
            return;
        }
        op.placeAnswer(offset, r.payloadBuffer(), r.payloadAt(), n);
        op.received += n;
        if (r.has(ShmRecordDescriptor.LAST)) {
            op.awaitsAnswer = false;
            tx.complete(op);
        }
    }

    // =================================================================== target

    /**
     * A WRITE fragment into one of our regions: the first checks the key, range and rights
     * (an error is kept and answered with the last); each is placed; the last is forced to
     * storage for {@code FI_COMMIT_COMPLETE}, counted, and acknowledged.
     */
    void onWrite(Peer p, ShmRecord r) {
        int kf = r.kindFlags();
        long total = r.totalLength();
        long offset = r.fragmentOffset();
        if ((kf & ShmRecordDescriptor.FIRST) != 0) {
            long key = r.rmaKey();
            long addr = r.rmaAddr();
            p.wRegion = null;
            p.wStatus = 0;
            if (total < 0 || total > ShmProvider.MAX_MSG_SIZE || offset != 0) {
                peers.failPeer(p, Errno.EPROTO);
                return;
            }
            if ((caps & Fi.FI_REMOTE_WRITE) == 0 && (caps & (Fi.FI_RMA | Fi.FI_ATOMIC)) == 0) {
                p.wStatus = Errno.EACCES;
            } else {
                long idx = registry.targetIndex(key, addr, total, Fi.FI_REMOTE_WRITE);
                if (idx < 0) {
                    p.wStatus = (int) -idx;
                } else {
                    p.wRegion = registry.lookup(key);
                    p.wIndex = (int) idx;
                    if (p.wRegion == null) {
                        p.wStatus = Errno.ENOKEY;
                    }
                }
            }
            p.wTotal = total;
        }
        int n = r.payloadLength();
        if (offset < 0 || n > p.wTotal - offset) {
            peers.failPeer(p, Errno.EPROTO);
            return;
        }
        if (p.wStatus == 0 && p.wRegion != null && n > 0) {
            p.wRegion.buffer().put(p.wIndex + (int) offset, r.payloadBuffer(), r.payloadAt(), n);
        }
        if ((kf & ShmRecordDescriptor.LAST) == 0) {
            return;
        }
        int status = p.wStatus;
        UtilMemoryRegion region = p.wRegion;
        p.wRegion = null;
        if (status == 0 && region != null) {
            if ((kf & ShmRecordDescriptor.COMMIT) != 0 && region.buffer() instanceof MappedByteBuffer m && p.wTotal > 0) {
                m.force(p.wIndex, (int) p.wTotal);
            }
            ShmBindings.count(bound.remoteWriteCntr);
            if ((kf & ShmRecordDescriptor.HAS_DATA) != 0 && bound.rxCq != null) {
                flushStaged();
                bound.rxCq.completeUnsolicited(null, Fi.FI_RMA | Fi.FI_REMOTE_WRITE | Fi.FI_REMOTE_CQ_DATA, 0, null, 0,
                        r.rmaData(), 0, receiver.sourceOf(p));
            }
        }
        transmitter.sendAnswer(p, ShmRecordDescriptor.ACK, r.token(), status, 0, 0);
    }

    /** A READ_REQ for one of our regions: answered with the bytes (READ_RESP fragments) or the error. */
    void onReadRequest(Peer p, ShmRecord r) {
        long key = r.rmaKey();
        long addr = r.rmaAddr();
        long len = r.totalLength();
        long idx = len < 0 || len > ShmProvider.MAX_MSG_SIZE ? -Errno.EINVAL
                : registry.targetIndex(key, addr, len, Fi.FI_REMOTE_READ);
        UtilMemoryRegion region = idx < 0 ? null : registry.lookup(key);
        ShmTransmitter tx = transmitter;
        ShmOutboundOp op = tx.take();
        op.kind = ShmRecordDescriptor.READ_RESP;
        op.peer = p;
        op.token = r.token();
        if (region == null) {
            op.status = idx < 0 ? (int) -idx : Errno.ENOKEY;
            op.a = 0;
        } else {
            op.part(region.buffer(), (int) idx, (int) len);
            op.a = len;
            ShmBindings.count(bound.remoteReadCntr);
        }
        tx.enqueue(p, op);
    }

    /** A peer accessed our published memory directly: remote counters and remote CQ data. */
    void onNotify(Peer p, ShmRecord r) {
        int kf = r.kindFlags();
        if ((kf & ShmRecordDescriptor.REMOTE_WRITE) != 0) {
            ShmBindings.count(bound.remoteWriteCntr);
        }
        if ((kf & ShmRecordDescriptor.REMOTE_READ) != 0) {
            ShmBindings.count(bound.remoteReadCntr);
        }
        if ((kf & ShmRecordDescriptor.HAS_DATA) != 0 && bound.rxCq != null) {
            flushStaged();
            bound.rxCq.completeUnsolicited(null, Fi.FI_RMA | Fi.FI_REMOTE_WRITE | Fi.FI_REMOTE_CQ_DATA, 0, null, 0,
                    r.rmaData(), 0, receiver.sourceOf(p));
        }
    }

    /** Publishes the receive completions a drain pass staged: the CQ may be the same, and they came first. */
    private void flushStaged() {
        bound.flushStaged();
    }
}
