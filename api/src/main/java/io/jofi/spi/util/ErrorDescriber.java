package io.jofi.spi.util;

/**
 * A provider's {@code fi_cq_strerror} / {@code fi_eq_strerror}: turns its own error number and
 * error data into a sentence that helps the reader find the cause (R3). Given to
 * {@link UtilCompletionQueue} and {@link UtilEventQueue}; {@code null} there means the generic text.
 */
@FunctionalInterface
public interface ErrorDescriber {
    /**
     * @param provErrno   the provider-specific error number
     * @param errData     the error data (may be null)
     * @param errDataSize valid bytes in {@code errData}
     * @return a sentence, or {@code null} to use the generic one
     */
    String describe(int provErrno, byte[] errData, int errDataSize);
}
