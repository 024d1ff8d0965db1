package io.jofi;

/**
 * Endpoint type: {@code enum fi_ep_type}, the {@code type} field of {@code struct fi_ep_attr} (see
 * fi_endpoint(3), fi_getinfo(3)).
 */
public enum EpType {
    /** {@code FI_EP_UNSPEC}: No preference: any endpoint type the provider offers. */
    UNSPEC("FI_EP_UNSPEC", 0),

    /**
     * {@code FI_EP_MSG}: Reliable, connection-oriented messages (connect/accept through an event
     * queue).
     */
    MSG("FI_EP_MSG", 1),

    /** {@code FI_EP_DGRAM}: Unreliable, connectionless datagrams. */
    DGRAM("FI_EP_DGRAM", 2),

    /** {@code FI_EP_RDM}: Reliable, connectionless datagrams (reliable datagram messages). */
    RDM("FI_EP_RDM", 3);

    private final String fiName;
    private final int fiValue;

    EpType(String fiName, int fiValue) {
        this.fiName = fiName;
        this.fiValue = fiValue;
    }

    /**
     * The libfabric name of this constant, e.g. {@code "FI_EP_MSG"}, as {@code fi_tostr} prints it.
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
    public static EpType ofFiValue(int value) {
        for (EpType c : values()) {
            if (c.fiValue == value) {
                return c;
            }
        }
        throw new IllegalArgumentException("no EpType has the libfabric value " + value);
    }
}
