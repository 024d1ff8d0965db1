package io.jofi.provider.shm;

/**
 * This endpoint's own side of the wire: its region (the ring peers write into), the sender
 * identity its records carry ({@link #PID}, {@link #seq()}), the largest payload of one record,
 * and whether the endpoint is enabled and its ring still usable.
 *
 * <p>Written by the endpoint (enable, close, departure) and by {@link ShmFaults} (a failed
 * ring); read by the parts that write records or read the ring. Under the endpoint's lock,
 * except {@link #enabled()} (volatile: the wait bridge reads it without the lock).
 */
final class ShmOwnRing {
    /** This process's id: the first half of every sender id ({@link ShmRecordDescriptor#SENDER_PID}). */
    static final long PID = ProcessHandle.current().pid();

    private RingLink link;
    private String name;
    private long seq;
    private int fragment;
    private volatile boolean enabled;
    private boolean failed;

    ShmOwnRing(int fragment) {
        this.fragment = fragment;
    }

    /**
     * The region {@code link} named {@code name} is this endpoint's now: its sender id follows
     * from the name, and the fragment is fitted to the ring (every peer's ring has the same
     * size: one provider setting).
     */
    void open(RingLink link, String name) {
        this.link = link;
        this.name = name;
        this.seq = ShmRecordDescriptor.seqOf(name);
        this.fragment = Math.max(64, Math.min(fragment, link.maxPayload() - ShmRecordDescriptor.HEADER));
    }

    /** Lets go of the region (close, departure); the name stays for the endpoint's description. */
    void close() {
        if (link != null) {
            link.close();
            link = null;
        }
    }

    /** The own region, or null before enable and after close. */
    RingLink link() {
        return link;
    }

    /** The region's name, or null before enable. */
    String name() {
        return name;
    }

    /** The second half of this endpoint's sender id ({@link ShmRecordDescriptor#SENDER_SEQ}). */
    long seq() {
        return seq;
    }

    /** The largest payload of one ring record (the inline threshold, fitted to the ring at enable). */
    int fragment() {
        return fragment;
    }

    boolean enabled() {
        return enabled;
    }

    void enabled(boolean on) {
        enabled = on;
    }

    /** The own ring is corrupt or faulted: never read again ({@link ShmFaults#failOwnRing}). */
    boolean failed() {
        return failed;
    }

    void markFailed() {
        failed = true;
    }
}
