package io.jofi;

/**
 * Completion entry format of a completion queue: {@code enum fi_cq_format}, the {@code format}
 * field of {@code struct fi_cq_attr} (see fi_cq(3)). It says which fields of a {@link CqEntry} are
 * valid.
 */
public enum CqFormat {
    /** {@code FI_CQ_FORMAT_UNSPEC}: No preference: the provider chooses. */
    UNSPEC("FI_CQ_FORMAT_UNSPEC", 0),

    /** {@code FI_CQ_FORMAT_CONTEXT}: {@code struct fi_cq_entry}: the operation context only. */
    CONTEXT("FI_CQ_FORMAT_CONTEXT", 1),

    /** {@code FI_CQ_FORMAT_MSG}: {@code struct fi_cq_msg_entry}: context, flags and length. */
    MSG("FI_CQ_FORMAT_MSG", 2),

    /**
     * {@code FI_CQ_FORMAT_DATA}: {@code struct fi_cq_data_entry}: context, flags, length, buffer
     * and remote CQ data.
     */
    DATA("FI_CQ_FORMAT_DATA", 3),

    /**
     * {@code FI_CQ_FORMAT_TAGGED}: {@code struct fi_cq_tagged_entry}: the {@code DATA} fields plus
     * the tag.
     */
    TAGGED("FI_CQ_FORMAT_TAGGED", 4);

    private final String fiName;
    private final int fiValue;

    CqFormat(String fiName, int fiValue) {
        this.fiName = fiName;
        this.fiValue = fiValue;
    }

    /**
     * The libfabric name of this constant, e.g. {@code "FI_CQ_FORMAT_CONTEXT"}, as {@code fi_tostr}
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
    public static CqFormat ofFiValue(int value) {
        for (CqFormat c : values()) {
            if (c.fiValue == value) {
                return c;
            }
        }
        throw new IllegalArgumentException("no CqFormat has the libfabric value " + value);
    }
}
