package io.jofi;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A completion counter ({@code fi_cntr}): counts completed operations and, separately,
 * failed ones.
 */
@ProviderType
public interface Counter extends Fid {
    /** {@code fi_cntr_read}: drives progress and returns the success count. */
    long read();

    /** {@code fi_cntr_readerr}: the error count. */
    long readErr();

    /** {@code fi_cntr_add}; 0 or a negative errno. */
    int add(long value);

    /** {@code fi_cntr_set}. */
    int set(long value);

    /** {@code fi_cntr_adderr}. */
    int addErr(long value);

    /** {@code fi_cntr_seterr}. */
    int setErr(long value);

    /**
     * {@code fi_cntr_wait}: blocks until the count reaches {@code threshold}. A negative
     * timeout waits forever.
     *
     * @return {@code 0}; {@code -EAGAIN} on timeout or interrupt; {@code -EAVAIL} when the
     *         error count changed while waiting; {@code -ENOSYS} with {@code WaitObj.NONE} or
     *         {@code SET} (R4)
     */
    int await(long threshold, int timeoutMs);

    /** {@code fi_control(FI_GETWAIT)}. */
    WaitObject getWait() throws FabricException;
}
