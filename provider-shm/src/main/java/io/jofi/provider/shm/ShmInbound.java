package io.jofi.provider.shm;

/**
 * Where the ring reader hands the records it validated, and the bracket of its pass: the door
 * between taking records out of the ring ({@link ShmRingReader}) and what each kind of record
 * means ({@link ShmRecordDispatch}).
 */
interface ShmInbound {
    /** A drain pass starts: the completions it makes are staged until {@link #passEnds}. */
    void passStarts();

    /** The pass ends: its staged completions are published (also when a fault leaves it). */
    void passEnds();

    /** Whether a message waits at the ring's head for the unexpected budget: the pass stops. */
    boolean holding();

    /**
     * One validated record from {@code from} (not failed).
     *
     * @return false to leave it in the ring (held back for the unexpected budget)
     */
    boolean onRecord(Peer from, ShmRecord r);
}
