package io.jofi;

/**
 * Format of an endpoint address: the {@code addr_format} field of {@code struct fi_info}
 * ({@code FI_FORMAT_UNSPEC}, {@code FI_SOCKADDR_IN}, ... in fabric.h). {@link Addresses} converts
 * and prints these formats.
 */
public enum AddrFormat {
    /** {@code FI_FORMAT_UNSPEC}: Unspecified or provider-specific bytes. */
    UNSPEC("FI_FORMAT_UNSPEC", 0),

    /**
     * {@code FI_SOCKADDR_IN}: {@code struct sockaddr_in}: 16 bytes, family {@code AF_INET} (2),
     * port in network byte order.
     */
    SOCKADDR_IN("FI_SOCKADDR_IN", 2),

    /**
     * {@code FI_SOCKADDR_IN6}: {@code struct sockaddr_in6}: 28 bytes, family {@code AF_INET6} (10),
     * port in network byte order.
     */
    SOCKADDR_IN6("FI_SOCKADDR_IN6", 3),

    /**
     * {@code FI_SOCKADDR_IB}: {@code struct sockaddr_ib}: 48 bytes, family {@code AF_IB} (27): GID,
     * P_Key and service id.
     */
    SOCKADDR_IB("FI_SOCKADDR_IB", 4),

    /** {@code FI_ADDR_STR}: A NUL-terminated string of the form {@code fi_<format>://<address>}. */
    ADDR_STR("FI_ADDR_STR", 9);

    private final String fiName;
    private final int fiValue;

    AddrFormat(String fiName, int fiValue) {
        this.fiName = fiName;
        this.fiValue = fiValue;
    }

    /**
     * The libfabric name of this constant, e.g. {@code "FI_SOCKADDR_IN"}, as {@code fi_tostr}
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
    public static AddrFormat ofFiValue(int value) {
        for (AddrFormat c : values()) {
            if (c.fiValue == value) {
                return c;
            }
        }
        throw new IllegalArgumentException("no AddrFormat has the libfabric value " + value);
    }
}
