package io.jofi;

/**
 * Wait object kind of a CQ, EQ, counter or wait set: {@code enum fi_wait_obj}, the {@code wait_obj}
 * field of {@code struct fi_cq_attr}, {@code fi_eq_attr}, {@code fi_cntr_attr} and
 * {@code fi_wait_attr} (see fi_cq(3), fi_eq(3)). {@link WaitObject} is what {@code getWait()}
 * returns for it.
 */
public enum WaitObj {
    /**
     * {@code FI_WAIT_NONE}: No wait object: the application never blocks on the queue
     * ({@code sread} returns {@code -ENOSYS}).
     */
    NONE("FI_WAIT_NONE", 0),

    /**
     * {@code FI_WAIT_UNSPEC}: The provider's choice, usable only through the blocking calls of the
     * API.
     */
    UNSPEC("FI_WAIT_UNSPEC", 1),

    /** {@code FI_WAIT_SET}: The queue signals the wait set named in its attributes. */
    SET("FI_WAIT_SET", 2),

    /**
     * {@code FI_WAIT_FD}: A selectable channel, the Java counterpart of a file descriptor
     * ({@link WaitObject.Fd}).
     */
    FD("FI_WAIT_FD", 3),

    /**
     * {@code FI_WAIT_MUTEX_COND}: A lock and condition the provider signals under
     * ({@link WaitObject.MutexCond}).
     */
    MUTEX_COND("FI_WAIT_MUTEX_COND", 4),

    /** {@code FI_WAIT_YIELD}: Blocking reads spin, yielding the thread between polls. */
    YIELD("FI_WAIT_YIELD", 5);

    private final String fiName;
    private final int fiValue;

    WaitObj(String fiName, int fiValue) {
        this.fiName = fiName;
        this.fiValue = fiValue;
    }

    /**
     * The libfabric name of this constant, e.g. {@code "FI_WAIT_UNSPEC"}, as {@code fi_tostr}
     * prints it.
     */
    public String fiName() {
        return fiName;
    }

    /** The numeric value of this constant in libfabric's headers. */
    public int fiValue() {
        return fiValue;
    }

    /**
     * The constant whose libfabric value is {@code value}.
     *
     * @throws IllegalArgumentException if no constant of this enum has that value
     */
    public static WaitObj ofFiValue(int value) {
        for (WaitObj c : values()) {
            if (c.fiValue == value) {
                return c;
            }
        }
        throw new IllegalArgumentException("no WaitObj has the libfabric value " + value);
    }
}
