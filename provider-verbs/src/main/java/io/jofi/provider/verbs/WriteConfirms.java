package io.jofi.provider.verbs;

/**
 * When an iWARP write's confirmation read ({@link RmaSlots}: a zero-length RDMA read that
 * completes the write once the target processed it) may go out on a queue pair: never while a
 * read of data is in flight there, and no read of data while a confirmation is.
 *
 * <p>Why: soft-iWARP (siw, Debian 12's Linux 6.1) now and then completes a zero-length read that
 * overlaps a read of data with {@code IBV_WC_GENERAL_ERR}, which ends the connection — the kit's
 * {@code countersCountRmaOperations} (two writes, then a read) failed 1 run in 10 on siw0, a
 * write then a read 7 in 30, two writes with nothing but their confirmations in flight 0 in 30;
 * an {@code IBV_SEND_FENCE}d confirmation never completed at all. So a confirmation that falls
 * due while reads of data are in flight waits here, in order, and goes out when the last of them
 * completes ({@link #due}); a read of data asked for while confirmations are in flight answers
 * {@code -EAGAIN} ({@link #readMustWait}: the application progresses and retries, as with
 * {@code FI_FENCE} on iWARP).
 *
 * <p>Counts and a queue of slots, allocated once; guarded by the owning endpoint's lock.
 */
final class WriteConfirms {
    /** Slots whose write completed and whose confirmation waits for the reads of data, in order. */
    private final int[] waiting;
    private int waitingCount;
    /** Whether a slot's read of data is counted in {@link #dataReads} (staged and not yet released). */
    private final boolean[] countedRead;
    /** Reads of data staged or in flight. */
    private int dataReads;
    /** Confirmation reads in flight. */
    private int confirmsInFlight;

    WriteConfirms(int slots) {
        this.waiting = new int[slots];
        this.countedRead = new boolean[slots];
    }

    /** Whether a read of data must answer {@code -EAGAIN} now: confirmations are in flight or waiting. */
    boolean readMustWait() {
        return confirmsInFlight > 0 || waitingCount > 0;
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
     * The write of {@code slot} completed: true when its confirmation may go out now (the caller
     * posts it and calls {@link #sent}); else it waits here until {@link #due}.
     */
    boolean mayConfirm(int slot) {
        if (dataReads == 0) {
            return true;
        }
        waiting[waitingCount++] = slot;
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

    /** Whether confirmations wait and may go out now: no read of data is in flight any more. */
    boolean due() {
        return waitingCount > 0 && dataReads == 0;
    }

    /** The waiting confirmations, in order, for the caller to post; the queue is empty after. */
    int drain(int[] into) {
        int n = waitingCount;
        System.arraycopy(waiting, 0, into, 0, n);
        waitingCount = 0;
        return n;
    }

    /** {@code slot}'s waiting confirmation is dropped (the connection ended before it went out). */
    void drop(int slot) {
        for (int i = 0; i < waitingCount; i++) {
            if (waiting[i] == slot) {
                System.arraycopy(waiting, i + 1, waiting, i, waitingCount - i - 1);
                waitingCount--;
                return;
            }
        }
    }
}
