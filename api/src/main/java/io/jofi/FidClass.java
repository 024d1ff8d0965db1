package io.jofi;

/**
 * Class of a fabric object: the {@code fclass} field of {@code struct fid} ({@code FI_CLASS_*} in
 * fabric.h), as returned by {@link Fid#fidClass()}.
 */
public enum FidClass {
    /** {@code FI_CLASS_FABRIC}: A fabric ({@code struct fid_fabric}), see fi_fabric(3). */
    FABRIC("FI_CLASS_FABRIC", 1),

    /** {@code FI_CLASS_DOMAIN}: A domain ({@code struct fid_domain}), see fi_domain(3). */
    DOMAIN("FI_CLASS_DOMAIN", 2),

    /** {@code FI_CLASS_EP}: An active endpoint ({@code struct fid_ep}), see fi_endpoint(3). */
    ENDPOINT("FI_CLASS_EP", 3),

    /**
     * {@code FI_CLASS_PEP}: A passive (listening) endpoint ({@code struct fid_pep}), see
     * fi_endpoint(3).
     */
    PASSIVE_ENDPOINT("FI_CLASS_PEP", 9),

    /** {@code FI_CLASS_CQ}: A completion queue ({@code struct fid_cq}), see fi_cq(3). */
    CQ("FI_CLASS_CQ", 14),

    /** {@code FI_CLASS_EQ}: An event queue ({@code struct fid_eq}), see fi_eq(3). */
    EQ("FI_CLASS_EQ", 13),

    /** {@code FI_CLASS_AV}: An address vector ({@code struct fid_av}), see fi_av(3). */
    AV("FI_CLASS_AV", 11),

    /** {@code FI_CLASS_MR}: A memory region ({@code struct fid_mr}), see fi_mr(3). */
    MR("FI_CLASS_MR", 12),

    /** {@code FI_CLASS_CNTR}: A completion counter ({@code struct fid_cntr}), see fi_cntr(3). */
    COUNTER("FI_CLASS_CNTR", 15),

    /** {@code FI_CLASS_WAIT}: A wait set ({@code struct fid_wait}), see fi_poll(3). */
    WAIT_SET("FI_CLASS_WAIT", 16),

    /** {@code FI_CLASS_POLL}: A poll set ({@code struct fid_poll}), see fi_poll(3). */
    POLL_SET("FI_CLASS_POLL", 17);

    private final String fiName;
    private final int fiValue;

    FidClass(String fiName, int fiValue) {
        this.fiName = fiName;
        this.fiValue = fiValue;
    }

    /**
     * The libfabric name of this constant, e.g. {@code "FI_CLASS_DOMAIN"}, as {@code fi_tostr}
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
    public static FidClass ofFiValue(int value) {
        for (FidClass c : values()) {
            if (c.fiValue == value) {
                return c;
            }
        }
        throw new IllegalArgumentException("no FidClass has the libfabric value " + value);
    }
}
