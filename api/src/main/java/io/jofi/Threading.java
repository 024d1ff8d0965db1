package io.jofi;

/**
 * Threading model of a domain: {@code enum fi_threading}, the {@code threading} field of
 * {@code struct fi_domain_attr} (see fi_domain(3)).
 *
 * <p>The constants keep the order of the JOFI specification, not libfabric's numbering: use
 * {@link #fiValue()} for the C value. {@link #FID} is appended last.
 */
public enum Threading {
    /**
     * {@code FI_THREAD_UNSPEC}: No preference: the provider chooses (JOFI providers choose
     * {@link #SAFE}).
     */
    UNSPEC("FI_THREAD_UNSPEC", 0),

    /** {@code FI_THREAD_SAFE}: Every object may be used concurrently from any number of threads. */
    SAFE("FI_THREAD_SAFE", 1),

    /**
     * {@code FI_THREAD_DOMAIN}: The application serializes all access to the objects of one domain.
     */
    DOMAIN("FI_THREAD_DOMAIN", 3),

    /**
     * {@code FI_THREAD_COMPLETION}: The application serializes access per completion structure
     * (CQ/counter and the endpoints bound to it).
     */
    COMPLETION("FI_THREAD_COMPLETION", 4),

    /**
     * {@code FI_THREAD_ENDPOINT}: The application serializes access per endpoint (and its
     * transmit/receive contexts).
     */
    ENDPOINT("FI_THREAD_ENDPOINT", 5),

    /**
     * {@code FI_THREAD_FID}: The application serializes access per fabric object (deprecated in
     * libfabric).
     */
    FID("FI_THREAD_FID", 2);

    private final String fiName;
    private final int fiValue;

    Threading(String fiName, int fiValue) {
        this.fiName = fiName;
        this.fiValue = fiValue;
    }

    /**
     * The libfabric name of this constant, e.g. {@code "FI_THREAD_SAFE"}, as {@code fi_tostr}
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
    public static Threading ofFiValue(int value) {
        for (Threading c : values()) {
            if (c.fiValue == value) {
                return c;
            }
        }
        throw new IllegalArgumentException("no Threading has the libfabric value " + value);
    }
}
