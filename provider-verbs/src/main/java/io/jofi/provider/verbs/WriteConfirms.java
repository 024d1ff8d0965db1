package io.jofi.provider.verbs;

/**
 * How an iWARP write learns that its target processed it: by a read of data posted after it on
 * the same queue pair, when one is in flight as the write completes locally, else by its own
 * confirmation read ({@link RmaSlots}: a zero-length RDMA read of its target) — and never a
 * confirmation read beside a read of data.
 *
 * <p>Why a later read confirms: a queue pair's work requests reach the target in order on one
 * stream, and the target answers a read only after it processed everything before it; a write it
 * refused ends the connection, so that read then fails too. Taking its work completions to come
 * in posting order, when a write completes locally every read of data still in flight was
 * posted after it: such a write <em>rides</em> on them and completes successfully with the first
 * of them that does ({@link #takeRiders}); if they fail, the connection is over and the write is
 * swept with {@code EIO} like any unconfirmed write. Open: where a device completes a write
 * before a read posted ahead of it (siw may: a write completes once sent, a read once
 * answered), the write rides on that earlier read, which does not prove it placed; a posting
 * sequence per slot, riding only on later reads, would close it (docs/VERBS.md).
 *
 * <p>Why the separation: soft-iWARP (siw, Debian 12's Linux 6.1) now and then completes a
 * zero-length read near a read of data with {@code IBV_WC_GENERAL_ERR}, which ends the
 * connection — overlapping (the kit's {@code countersCountRmaOperations}, two writes then a read,
 * failed 1 run in 10 on siw0; a write then a read 7 in 30) and right behind one (the confirmation
 * posted when the read of data had completed: CI's siw stage failed
 * {@code interleavedWritesAndReadsAllSucceed} at its first round once), while two writes with
 * nothing but their confirmations in flight failed 0 in 30; an {@code IBV_SEND_FENCE}d
 * confirmation never completed at all. A write followed by a read now needs no confirmation
 * read, and a read of data asked for while confirmations are in flight answers {@code -EAGAIN}
 * ({@link #readMustWait}: the application progresses and retries, as with {@code FI_FENCE} on
 * iWARP).
 *
 * <p>Counts and a list of slots, allocated once; guarded by the owning endpoint's lock.
 */
final class WriteConfirms {
    /** Slots whose write completed locally while later reads of data were in flight, in order. */
    private final int[] riders;
    private int riderCount;
    /** Whether a slot's read of data is counted in {@link #dataReads} (staged and not yet released). */
    private final boolean[] countedRead;
    /** Reads of data staged or in flight. */
    private int dataReads;
    /** Confirmation reads in flight. */
    private int confirmsInFlight;

    WriteConfirms(int slots) {
        this.riders = new int[slots];
        this.countedRead = new boolean[slots];
    }

    /** Whether a read of data must answer {@code -EAGAIN} now: confirmation reads are in flight. */
    boolean readMustWait() {
        return confirmsInFlight > 0;
    }

    /** {@code slot}'s read of data was staged on the queue pair. */
    void readStaged(int slot) {
        if (!countedRead[slot]) {
            countedRead[slot] = true;
            dataReads++;
        }
    }

    /** {@code slot} is free again (completed, failed or taken back): its read of data no longer counts. */
    void released(int slot) {
        if (countedRead[slot]) {
            countedRead[slot] = false;
            dataReads--;
        }
    }

    /**
     * The write of {@code slot} completed locally: true when it needs its own confirmation read
     * (the caller posts it and calls {@link #sent}); false when reads of data posted after it are
     * in flight and it rides on them ({@link #takeRiders}).
     */
    boolean needsConfirmRead(int slot) {
        if (dataReads == 0) {
            return true;
        }
        riders[riderCount++] = slot;
        return false;
    }

    /** A confirmation read was posted. */
    void sent() {
        confirmsInFlight++;
    }

    /** A confirmation read completed (with any status). */
    void confirmed() {
        confirmsInFlight--;
    }

    /**
     * A read of data completed successfully: the writes riding on it, in order, into
     * {@code into} (a slot-sized array) for the caller to complete; how many. None ride after.
     */
    int takeRiders(int[] into) {
        int n = riderCount;
        System.arraycopy(riders, 0, into, 0, n);
        riderCount = 0;
        return n;
    }

    /** {@code slot}'s write no longer rides (it failed or was swept with its connection). */
    void drop(int slot) {
        for (int i = 0; i < riderCount; i++) {
            if (riders[i] == slot) {
                System.arraycopy(riders, i + 1, riders, i, riderCount - i - 1);
                riderCount--;
                return;
            }
        }
    }
}
