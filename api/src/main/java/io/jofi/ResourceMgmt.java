package io.jofi;

/**
 * Resource management of a domain: {@code enum fi_resource_mgmt}, the {@code resource_mgmt} field
 * of {@code struct fi_domain_attr} (see fi_domain(3)).
 */
public enum ResourceMgmt {
    /** {@code FI_RM_UNSPEC}: No preference: the provider chooses. */
    UNSPEC("FI_RM_UNSPEC", 0),

    /**
     * {@code FI_RM_DISABLED}: The application must not overrun queues; the provider does not
     * protect against it.
     */
    DISABLED("FI_RM_DISABLED", 1),

    /**
     * {@code FI_RM_ENABLED}: The provider protects against queue overruns (posts return
     * {@code -EAGAIN} instead).
     */
    ENABLED("FI_RM_ENABLED", 2);

    private final String fiName;
    private final int fiValue;

    ResourceMgmt(String fiName, int fiValue) {
        this.fiName = fiName;
        this.fiValue = fiValue;
    }

    /**
     * The libfabric name of this constant, e.g. {@code "FI_RM_DISABLED"}, as {@code fi_tostr}
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
    public static ResourceMgmt ofFiValue(int value) {
        for (ResourceMgmt c : values()) {
            if (c.fiValue == value) {
                return c;
            }
        }
        throw new IllegalArgumentException("no ResourceMgmt has the libfabric value " + value);
    }
}
