package io.jofi.provider.rxm;

import io.jofi.spi.util.ProgressEngine;
import java.util.concurrent.locks.LockSupport;

/**
 * The progress engine's step of one rxm endpoint: one pass over its MSG CQ once the endpoint is
 * enabled, a bounded park before. The engine starts before the endpoint exists (in its super
 * constructor), so the endpoint is attached once made.
 */
final class RxmProgressStep implements ProgressEngine.Step {
    /** What the step asks of its endpoint. */
    interface Pass {
        /** Whether the endpoint is enabled and neither closed nor departed. */
        boolean isEnabled();

        /** One pass ({@link RxmMsgCqReader#pass}). */
        int pass(long timeoutNanos);

        /** Wakes a pass asleep on the MSG CQ. */
        void wakePass();
    }

    private volatile Pass endpoint;

    void attach(Pass endpoint) {
        this.endpoint = endpoint;
    }

    @Override
    public int progress(long timeoutNanos) {
        Pass ep = endpoint;
        if (ep == null || !ep.isEnabled()) {
            if (timeoutNanos > 0) {
                LockSupport.parkNanos(Math.min(timeoutNanos, RxmMsgCqReader.MAX_WAIT_NANOS));
            }
            return 0;
        }
        return ep.pass(timeoutNanos);
    }

    @Override
    public void wakeup() {
        Pass ep = endpoint;
        if (ep != null) {
            ep.wakePass();
        }
    }
}
