package io.jofi;

/**
 * Progress model: {@code enum fi_progress}, the {@code control_progress} and {@code data_progress}
 * fields of {@code struct fi_domain_attr} (see fi_domain(3)).
 */
public enum Progress {
    /** {@code FI_PROGRESS_UNSPEC}: No preference: the provider chooses. */
    UNSPEC("FI_PROGRESS_UNSPEC", 0),

    /**
     * {@code FI_PROGRESS_AUTO}: The provider makes progress on its own (a provider thread moves
     * data).
     */
    AUTO("FI_PROGRESS_AUTO", 1),

    /**
     * {@code FI_PROGRESS_MANUAL}: Progress happens only inside the application's calls on CQs,
     * counters and endpoints.
     */
    MANUAL("FI_PROGRESS_MANUAL", 2);

    private final String fiName;
    private final int fiValue;

    Progress(String fiName, int fiValue) {
        this.fiName = fiName;
        this.fiValue = fiValue;
    }

    /**
     * The libfabric name of this constant, e.g. {@code "FI_PROGRESS_AUTO"}, as {@code fi_tostr}
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
    public static Progress ofFiValue(int value) {
        for (Progress c : values()) {
            if (c.fiValue == value) {
                return c;
            }
        }
        throw new IllegalArgumentException("no Progress has the libfabric value " + value);
    }
}
