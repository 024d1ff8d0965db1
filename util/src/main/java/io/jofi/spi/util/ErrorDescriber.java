package io.jofi.spi.util;

/**
 * A provider's {@code fi_cq_strerror} / {@code fi_eq_strerror}: turns its own error number and
 * error data into a sentence that helps the reader find the cause (R3). Given to
 * {@link UtilCompletionQueue} and {@link UtilEventQueue}; {@code null} there means the generic text.
 *
 * <p>It is asked only about the provider's own numbers: {@code provErrno == 0} means the
 * provider gave none, and the queue then describes the entry's {@code err} itself (R3; an
 * {@code FI_SOURCE_ERR} entry, a reject, the overrun entry), so a describer never has to tell
 * "no number" from a status that happens to be 0.
 */
@FunctionalInterface
public interface ErrorDescriber {
    /**
     * @param provErrno   the provider-specific error number (never 0)
     * @param errData     the error data (may be null)
     * @param errDataSize valid bytes in {@code errData}
     * @return a sentence, or {@code null} to use the generic one
     */
    String describe(int provErrno, byte[] errData, int errDataSize);
}
