package io.jofi.provider.shm;

import io.jofi.Errno;
import io.jofi.provider.shm.cma.CrossMemoryAttach;
import java.nio.ByteBuffer;

/**
 * Writes one outgoing operation's records into its peer's ring: the whole message in one
 * record with the compact header when nobody answers it, else fragment by fragment (inline, or
 * through the peer's bounce slots when longer than the inline threshold), or one CMA record
 * with the iovecs the receiver reads from this process (docs/SHM-LAYOUT.md has the layouts).
 *
 * <p>A full ring leaves the operation where it got to (the caller keeps it queued and tries
 * again on the next pass); a claim that fails for another reason (the ring is corrupt or gone)
 * fails the peer. Runs under the endpoint's lock; allocates nothing.
 */
final class ShmRingWriter {
    private final ShmOwnRing own;
    private final ShmPeers peers;
    private final ShmPeerCounters counters;
    /** The sending side of cross-memory attach (null when off: cmaThreshold 0 or CrossMemoryAttach unavailable). */
    private final CrossMemoryAttach cma;
    /** Messages of at least this many bytes from direct buffers go by cross-memory attach where the peer reads them. */
    private final int cmaThreshold;
    /** Tests: the probe carries a wrong value, so the peer's check fails (CMA off towards it). */
    private final boolean cmaProbeFault;

    ShmRingWriter(ShmOwnRing own, ShmPeers peers, ShmPeerCounters counters, CrossMemoryAttach cma, int cmaThreshold,
                  boolean cmaProbeFault) {
        this.own = own;
        this.peers = peers;
        this.counters = counters;
        this.cma = cma;
        this.cmaThreshold = cmaThreshold;
        this.cmaProbeFault = cmaProbeFault;
    }

    /**
     * Whether a message of {@code length} bytes ({@code op}'s payload attached) may go by
     * cross-memory attach: CMA on here, at least {@code cmaThreshold} bytes, every part a direct
     * buffer with a native address (the peer reads it where it is). Whether the peer reads CMA
     * is the peer's state ({@link Peer#cma}).
     */
    boolean cmaApplies(ShmOutboundOp op, long length) {
        if (cma == null || length < cmaThreshold) {
            return false;
        }
        for (int i = 0; i < op.partCount; i++) {
            if (cma.address(op.parts[i]) == 0) {
                return false;
            }
        }
        return true;
    }

    /** A CMA probe's words: the address of our probe word and the value the peer must read there. */
    void probeWord(ShmOutboundOp probe) {
        probe.a = cma.probeAddress();
        probe.b = cmaProbeFault ? ~cma.probeValue() : cma.probeValue();
    }

    /**
     * Writes the op's remaining fragments into the peer's ring; true when all are in. A
     * fragment longer than the inline threshold goes into a bounce slot of the peer's region
     * while one is free (the record then carries only the header), inline otherwise.
     */
    boolean push(Peer peer, ShmOutboundOp op) {
        RingLink link = peer.link;
        if ((op.wireFlags & ShmRecordDescriptor.CMA) != 0) {
            return pushCma(peer, op);
        }
        int fragment = own.fragment();
        if (op.kind == ShmRecordDescriptor.MSG && op.sent == 0 && op.length <= fragment
                && (op.wireFlags & ~ShmRecordDescriptor.COMPACT_OPTIONAL) == 0) {
            return pushCompact(peer, op);
        }
        do {
            long remaining = op.length - op.sent;
            int slot = remaining > fragment ? link.acquireSlot() : -1;
            int n;
            int at;
            if (slot >= 0) {
                n = (int) Math.min(link.slotSize(), remaining);
                at = link.claim(ShmRecordDescriptor.HEADER, slot + 1);
                if (at < 0) {
                    link.releaseSlot(slot); // ours: nobody else may have it meanwhile
                }
            } else {
                n = (int) Math.min(fragment, remaining);
                at = link.claim(ShmRecordDescriptor.HEADER + n);
            }
            if (!claimed(peer, at)) {
                return false;
            }
            ByteBuffer b = link.buffer();
            boolean first = op.sent == 0;
            boolean last = op.sent + n == op.length;
            b.putInt(at + ShmRecordDescriptor.KIND_FLAGS, op.kind | op.wireFlags
                    | (first ? ShmRecordDescriptor.FIRST : 0) | (last ? ShmRecordDescriptor.LAST : 0)
                    | (slot >= 0 ? ShmRecordDescriptor.BOUNCE : 0));
            b.putInt(at + ShmRecordDescriptor.STATUS, slot >= 0 ? n : op.status);
            b.putLong(at + ShmRecordDescriptor.SENDER_PID, ShmOwnRing.PID);
            b.putLong(at + ShmRecordDescriptor.SENDER_SEQ, own.seq());
            b.putLong(at + ShmRecordDescriptor.TOKEN, op.token);
            b.putLong(at + ShmRecordDescriptor.A, op.a);
            b.putLong(at + ShmRecordDescriptor.B, op.b);
            b.putLong(at + ShmRecordDescriptor.C, op.c);
            b.putLong(at + ShmRecordDescriptor.D, op.kind == ShmRecordDescriptor.ATOMIC_REQ ? op.d : op.sent);
            b.putLong(at + ShmRecordDescriptor.E, op.e);
            if (slot >= 0) {
                op.copyPayload(op.sent, link.slotBuffer(), link.slotOffset(slot), n);
            } else if (n > 0) {
                op.copyPayload(op.sent, b, at + ShmRecordDescriptor.HEADER, n);
            }
            if (link.publish(at)) { // release: the slot's bytes are visible with the record
                counters.doorbellRung();
            }
            op.sent += n;
        } while (op.sent < op.length);
        return true;
    }

    /**
     * Whether a claim in {@code peer}'s ring succeeded ({@code at} its offset): a full ring
     * leaves the operation queued for the next pass, a failed claim (the ring is corrupt or
     * gone) fails the peer.
     */
    private boolean claimed(Peer peer, int at) {
        if (at == RingLink.FULL) {
            ringFull(peer);
            return false;
        }
        if (at < 0) {
            peers.failPeer(peer, Errno.EIO);
            return false;
        }
        peer.waitsForRoom = false;
        return true;
    }

    /**
     * A whole message nobody answers, in one record with the compact header
     * ({@link ShmRecordDescriptor#COMPACT}): four header words, the tag and the remote CQ data
     * only when it has them — at 64 bytes the record spans two cache lines where the full
     * header's needed three, and the receiver zeroes less behind it.
     */
    private boolean pushCompact(Peer peer, ShmOutboundOp op) {
        RingLink link = peer.link;
        int flags = ShmRecordDescriptor.MSG | op.wireFlags | ShmRecordDescriptor.FIRST | ShmRecordDescriptor.LAST
                | ShmRecordDescriptor.COMPACT;
        int header = ShmRecordDescriptor.headerLength(flags);
        int n = (int) op.length;
        int at = link.claim(header + n);
        if (!claimed(peer, at)) {
            return false;
        }
        ByteBuffer b = link.buffer();
        b.putInt(at + ShmRecordDescriptor.KIND_FLAGS, flags);
        b.putInt(at + ShmRecordDescriptor.STATUS, 0);
        b.putLong(at + ShmRecordDescriptor.SENDER_PID, ShmOwnRing.PID);
        b.putLong(at + ShmRecordDescriptor.SENDER_SEQ, own.seq());
        int word = at + ShmRecordDescriptor.COMPACT_HEADER;
        if ((flags & ShmRecordDescriptor.TAGGED) != 0) {
            b.putLong(word, op.a);
            word += 8;
        }
        if ((flags & ShmRecordDescriptor.HAS_DATA) != 0) {
            b.putLong(word, op.b);
        }
        if (n > 0) {
            op.copyPayload(0, b, at + header, n);
        }
        if (link.publish(at)) {
            counters.doorbellRung();
        }
        op.sent = n;
        return true;
    }

    /**
     * A CMA message: one record whose payload is the (address, length) of each of our
     * buffers; the bytes stay where they are until the receiver has read them (ACK).
     */
    private boolean pushCma(Peer peer, ShmOutboundOp op) {
        RingLink link = peer.link;
        int at = link.claim(ShmRecordDescriptor.HEADER + ShmRecordDescriptor.CMA_IOV * op.partCount);
        if (!claimed(peer, at)) {
            return false;
        }
        ByteBuffer b = link.buffer();
        b.putInt(at + ShmRecordDescriptor.KIND_FLAGS,
                op.kind | op.wireFlags | ShmRecordDescriptor.FIRST | ShmRecordDescriptor.LAST);
        b.putInt(at + ShmRecordDescriptor.STATUS, op.partCount);
        b.putLong(at + ShmRecordDescriptor.SENDER_PID, ShmOwnRing.PID);
        b.putLong(at + ShmRecordDescriptor.SENDER_SEQ, own.seq());
        b.putLong(at + ShmRecordDescriptor.TOKEN, op.token);
        b.putLong(at + ShmRecordDescriptor.A, op.a);
        b.putLong(at + ShmRecordDescriptor.B, op.b);
        b.putLong(at + ShmRecordDescriptor.C, op.length);
        b.putLong(at + ShmRecordDescriptor.D, 0);
        b.putLong(at + ShmRecordDescriptor.E, 0);
        int iov = at + ShmRecordDescriptor.HEADER;
        for (int i = 0; i < op.partCount; i++) {
            b.putLong(iov, cma.address(op.parts[i]) + op.starts[i]);
            b.putLong(iov + 8, op.lengths[i]);
            iov += ShmRecordDescriptor.CMA_IOV;
        }
        if (link.publish(at)) {
            counters.doorbellRung();
        }
        op.sent = op.length;
        counters.cmaSent();
        return true;
    }

    /** The peer's ring is full: counted once per wait (the retries of one wait are not new waits). */
    private void ringFull(Peer peer) {
        if (!peer.waitsForRoom) {
            peer.waitsForRoom = true;
            counters.ringFullWait();
        }
    }
}
