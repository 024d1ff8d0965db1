package io.jofi;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A wait set ({@code fi_wait}): CQs, EQs and counters opened with {@code WaitObj.SET} and this
 * set in their attributes signal it.
 */
@ProviderType
public interface WaitSet extends Fid {
    /**
     * Blocks until a member signals. A negative timeout waits forever.
     *
     * @return {@code 0} when a member signalled, {@code -EAGAIN} on timeout or interrupt
     *         (interrupt status kept)
     */
    int await(int timeoutMs);

    /** The wait object of the set itself ({@code FI_WAIT_FD} or {@code MUTEX_COND}), if any. */
    WaitObject getWait() throws FabricException;
}
