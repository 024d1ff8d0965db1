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
}
