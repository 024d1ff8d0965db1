package io.jofi;

/**
 * Wait condition of a completion queue: {@code enum fi_cq_wait_cond}, the {@code wait_cond} field
 * of {@code struct fi_cq_attr} (see fi_cq(3)).
 */
public enum CqWaitCond {
    /**
     * {@code FI_CQ_COND_NONE}: Any new entry satisfies a blocking read; {@code cond} is ignored.
     */
    NONE("FI_CQ_COND_NONE", 0),

    /**
     * {@code FI_CQ_COND_THRESHOLD}: {@code cond} of a blocking read is the number of entries to
     * wait for.
     */
    THRESHOLD("FI_CQ_COND_THRESHOLD", 1);

    private final String fiName;
    private final int fiValue;

    CqWaitCond(String fiName, int fiValue) {
        this.fiName = fiName;
        this.fiValue = fiValue;
    }

    /**
     * The libfabric name of this constant, e.g. {@code "FI_CQ_COND_THRESHOLD"}, as {@code fi_tostr}
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
    public static CqWaitCond ofFiValue(int value) {
        for (CqWaitCond c : values()) {
            if (c.fiValue == value) {
                return c;
            }
        }
        throw new IllegalArgumentException("no CqWaitCond has the libfabric value " + value);
    }
}
