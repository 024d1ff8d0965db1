package io.jofi.provider.shm;

import io.jofi.Errno;
import io.jofi.spi.util.CompletionBatch;
import java.nio.ByteBuffer;

/**
 * Takes the records out of this endpoint's own ring: it finds the sender, validates the header
 * and the bounce slot, decodes the record once into a {@link ShmRecord} and hands it on
 * ({@link ShmInbound}: {@link ShmRecordDispatch} sends each kind to its part).
 *
 * <p>A record that does not make sense fails its sender ({@code EPROTO}), never this endpoint
 * or the progress thread; an exception a handler raises on a peer's bad input does the same.
 * Runs under the endpoint's lock (the progress step's).
 */
final class ShmRingReader implements RingLink.Handler {
    /** Records drained per progress pass (bounded, so that sends get their turn). */
    private static final int DRAIN_BATCH = 256;
    /** Records one {@link RingLink#take} hands over (fewer: the ring was empty as of its tail read). */
    private static final int TAKE_BATCH = 32;

    private final ShmOwnRing own;
    private final ShmSenders senders;
    private final ShmFaults faults;
    private final ShmInbound inbound;
    /** The record at hand (one flyweight, rewrapped per record). */
    private final ShmRecord record = new ShmRecord();

    ShmRingReader(ShmOwnRing own, ShmSenders senders, ShmFaults faults, ShmInbound inbound) {
        this.own = own;
        this.senders = senders;
        this.faults = faults;
        this.inbound = inbound;
    }

    /** The batch a drain pass stages its receive completions in (one per endpoint, shared with who must flush it). */
    static CompletionBatch newBatch() {
        return new CompletionBatch(DRAIN_BATCH);
    }

    /**
     * One progress pass over the own ring: up to {@value #DRAIN_BATCH} records, stopping early
     * when it is empty or a message waits at its head for the unexpected budget (push-back).
     * What it took is zeroed and given back to producers once, after the pass published its
     * completions ({@link RingLink#releaseTaken}): neither stands between a message and its
     * completion.
     *
     * @return the records taken
     */
    int drainBatch() {
        ShmInbound in = inbound;
        RingLink link = own.link();
        int work = 0;
        in.passStarts(); // the pass's receive completions are published at once
        try {
            link.check(); // one probe before the pass and one after it, not two per batch
            while (work < DRAIN_BATCH) {
                int n = link.take(this, TAKE_BATCH);
                if (n < 0) {
                    faults.failOwnRing();
                    break;
                }
                work += n;
                if (n < TAKE_BATCH || in.holding()) {
                    break; // empty as of the tail read, or a message waits at the head for the budget (push-back)
                }
            }
        } finally {
            // The completions first, then the ring's zeroing and head store (once a pass); also
            // when a fault leaves the pass.
            try {
                in.passEnds();
            } finally {
                link.releaseTaken();
            }
        }
        link.check(); // faults of the reads, the zeroing and slot releases come out inside the progress pass
        return work;
    }

    /**
     * Takes the records in our ring up to its tail as of now (called after a peer was seen gone:
     * everything it published before it went is below that tail), so that a peer that sent a
     * message and then closed — e.g. past the bound of one progress pass, or between the pass's
     * drain and its liveness check — has that message delivered, not dropped with the peer.
     * Bounded by the ring's size; stops at a record held back for the unexpected budget.
     */
    void drainPublishedBefore() {
        RingLink own = this.own.link();
        ShmInbound in = inbound;
        if (this.own.failed() || own == null || in.holding()) {
            return;
        }
        long until = own.claimedTail();
        long head;
        while ((head = own.consumedHead()) - until < 0) {
            if (own.drain(this, TAKE_BATCH) < 0) {
                faults.failOwnRing();
                return;
            }
            if (in.holding() || own.consumedHead() == head) {
                return; // the budget, or a claim not yet published (its producer's stall timeout decides)
            }
        }
    }

    /**
     * One record from our ring: every field is validated before use; a record that does not
     * make sense fails its sender, never this endpoint.
     *
     * @return false to leave the record in the ring (held back for the unexpected budget)
     */
    @Override
    public boolean onRecord(ByteBuffer b, int at, int length, int aux) {
        if (length < ShmRecordDescriptor.COMPACT_HEADER) {
            return true;
        }
        int kf = b.getInt(at + ShmRecordDescriptor.KIND_FLAGS);
        int header = ShmRecordDescriptor.headerLength(kf);
        if (length < header) {
            return true;
        }
        ShmSenders senders = this.senders;
        RingLink own = this.own.link();
        long senderPid = b.getLong(at + ShmRecordDescriptor.SENDER_PID);
        Peer p = senders.peerOf(senderPid, b.getLong(at + ShmRecordDescriptor.SENDER_SEQ));
        if (p != null) {
            p.activity++; // a sign of its progress (PeerLiveness.stalled)
        }
        ShmRecord r = record;
        r.wrap(b, at, kf);
        r.payload(b, at + header, length - header);
        if ((kf & ShmRecordDescriptor.COMPACT) != 0 && !ShmRecordDescriptor.validCompact(kf)) {
            if (p != null) {
                senders.failPeer(p, Errno.EPROTO); // compact only as a whole message nobody answers
            }
            return true;
        }
        int slot = -1;
        if ((kf & ShmRecordDescriptor.BOUNCE) != 0) {
            // every word from shared memory checked: the slot, its holder, the length
            int s = aux - 1;
            int len = r.status();
            if (!own.slotHeldBy(s, (int) senderPid) || r.payloadLength() != 0 || len < 0 || len > own.slotSize()) {
                if (p != null) {
                    senders.failPeer(p, Errno.EPROTO);
                }
                return true;
            }
            slot = s;
            r.payload(own.slotBuffer(), own.slotOffset(s), len);
        }
        boolean consumed = true;
        try {
            if (p != null && p.failed == 0) {
                consumed = inbound.onRecord(p, r);
            }
        } catch (RuntimeException | OutOfMemoryError e) {
            // Whatever a peer's record makes go wrong is that peer's failure, never this
            // endpoint's or the progress thread's (bad input from shared memory: docs/SHM-LAYOUT.md "Bad input, faults, security").
            senders.failPeer(p, Errno.EPROTO);
        } finally {
            if (slot >= 0 && consumed) {
                own.releaseSlot(slot); // a held record keeps its slot until it is taken
            }
        }
        return consumed;
    }
}
