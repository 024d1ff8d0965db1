package io.jofi;

/**
 * Address vector type: {@code enum fi_av_type}, the {@code av_type} field of
 * {@code struct fi_domain_attr} and the {@code type} field of {@code struct fi_av_attr} (see
 * fi_av(3)).
 */
public enum AvType {
    /** {@code FI_AV_UNSPEC}: No preference: the provider chooses. */
    UNSPEC("FI_AV_UNSPEC", 0),

    /**
     * {@code FI_AV_MAP}: Fabric addresses are provider-chosen values (often the native address
     * itself).
     */
    MAP("FI_AV_MAP", 1),

    /**
     * {@code FI_AV_TABLE}: Fabric addresses are consecutive indices 0, 1, 2, ... in insertion
     * order.
     */
    TABLE("FI_AV_TABLE", 2);

    private final String fiName;
    private final int fiValue;

    AvType(String fiName, int fiValue) {
        this.fiName = fiName;
        this.fiValue = fiValue;
    }

    /**
     * The libfabric name of this constant, e.g. {@code "FI_AV_MAP"}, as {@code fi_tostr} prints it.
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
    public static AvType ofFiValue(int value) {
        for (AvType c : values()) {
            if (c.fiValue == value) {
                return c;
            }
        }
        throw new IllegalArgumentException("no AvType has the libfabric value " + value);
    }
}
