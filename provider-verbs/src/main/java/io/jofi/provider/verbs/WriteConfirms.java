package io.jofi.provider.verbs;

/**
 * How an iWARP write learns that its target processed it: by a read of data posted after it on
 * the same queue pair, when one is in flight or posted while it waits, else by its own
 * confirmation read ({@link RmaSlots}: a zero-length RDMA read of its target) once no read of
 * data is in flight — never a confirmation read beside a read of data.
 *
 * <p>Why a later read confirms: a queue pair's work requests reach the target in order on one
 * stream, and the target answers a read only after it processed everything before it; a write it
 * refused ends the connection, so that read then fails too. "Later" is by posting sequence
 * ({@link #readStaged}'s {@code seq}), not by completion order: a device may complete a write
 * before a read posted ahead of it (siw completes a write once sent, a read once answered), and
 * that read proves nothing of the write. So a write that completes locally while reads of data
 * are in flight <em>rides</em>: the first read posted after it that succeeds completes it
 * ({@link #takeRiders}); when the reads in flight drain and none came after it, it gets its own
 * confirmation read ({@link #due}); if they fail, the connection is over and the write is swept
 * with {@code EIO} like any unconfirmed write.
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
 * <p>Counts and lists of slots, allocated once; guarded by the owning endpoint's lock.
 */
final class WriteConfirms {
    /** Slots whose write completed locally while reads of data were in flight, in order. */
    private final int[] riders;
    /** The posting sequence of each rider's write ({@link #needsConfirmRead}). */
    private final long[] riderSeq;
    private int riderCount;
    /** The posting sequence of each counted read of data ({@link #readStaged}). */
    private final long[] readSeq;
    /** Whether a slot's read of data is counted in {@link #dataReads} (staged and not yet released). */
    private final boolean[] countedRead;
    /** Reads of data staged or in flight. */
    private int dataReads;
    /** Confirmation reads in flight. */
    private int confirmsInFlight;

    WriteConfirms(int slots) {
        this.riders = new int[slots];
        this.riderSeq = new long[slots];
        this.readSeq = new long[slots];
        this.countedRead = new boolean[slots];
    }

    /** Whether a read of data must answer {@code -EAGAIN} now: confirmation reads are in flight. */
    boolean readMustWait() {
        return confirmsInFlight > 0;
    }

    /** {@code slot}'s read of data was staged on the queue pair, {@code seq}-th of the writes and reads posted. */
    void readStaged(int slot, long seq) {
        readSeq[slot] = seq;
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
     * The write of {@code slot}, posted {@code seq}-th, completed locally: true when it needs its
     * own confirmation read now (the caller posts it and calls {@link #sent}); false when reads
     * of data are in flight: it rides, completed by a later one ({@link #takeRiders}) or given
     * its confirmation read once they drained ({@link #due}).
     */
    boolean needsConfirmRead(int slot, long seq) {
        if (dataReads == 0) {
            return true;
        }
        riders[riderCount] = slot;
        riderSeq[riderCount++] = seq;
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
     * The read of data of {@code readSlot} completed successfully (still counted): the riders
     * posted before it, in order, into {@code into} (a slot-sized array) for the caller to
     * complete; how many. Riders posted after it keep riding.
     */
    int takeRiders(int readSlot, int[] into) {
        long read = readSeq[readSlot];
        int n = 0;
        int kept = 0;
        for (int i = 0; i < riderCount; i++) {
            if (riderSeq[i] < read) {
                into[n++] = riders[i];
            } else {
                riders[kept] = riders[i];
                riderSeq[kept++] = riderSeq[i];
            }
        }
        riderCount = kept;
        return n;
    }

    /** Whether riders are left with no read of data in flight: they need their confirmation reads now. */
    boolean due() {
        return riderCount > 0 && dataReads == 0;
    }

    /** The riders left, in order, for the caller to post their confirmation reads; none ride after. */
    int drain(int[] into) {
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
                System.arraycopy(riderSeq, i + 1, riderSeq, i, riderCount - i - 1);
                riderCount--;
                return;
            }
        }
    }
}
