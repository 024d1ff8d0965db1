package io.jofi.provider.tcp;

/**
 * What a channel registered with a {@link NioLoop} does when its selector reports it ready.
 * The attachment of every selection key of the provider.
 */
interface SelectHandler {
    /**
     * Called on the progress thread (one at a time per loop) with the key's ready set.
     * Must not throw: failures of the connection are handled inside (teardown, R14).
     */
    void onSelected(int readyOps);

    /** {@link #poll}: the whole pass must be a selector pass (see there). */
    int NEEDS_SELECTOR = -1;
    /** {@link #poll}: nothing done; the pass's selector call serves this channel (see there). */
    int LEFT_TO_SELECTOR = -2;

    /**
     * A manual progress pass without the selector ({@link NioLoop#registerPolled}): does what
     * the channel allows right now (for a data connection: reads what has arrived). Called on
     * the progress thread. Must not throw.
     *
     * @return the work done (0: nothing had arrived); {@link #NEEDS_SELECTOR} when the handler
     *         needs a selector pass (it waits for writability, is connecting, or is not a polled
     *         handler); {@link #LEFT_TO_SELECTOR} when a direct read would rarely find anything
     *         (a receiver of small frames that awaits no answer): the pass ends with a selector
     *         call instead
     */
    default int poll() {
        return NEEDS_SELECTOR;
    }
}
