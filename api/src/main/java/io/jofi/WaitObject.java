package io.jofi;

import java.nio.channels.SelectableChannel;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/** What {@code getWait()} ({@code fi_control(FI_GETWAIT)}) hands the application. */
public sealed interface WaitObject permits WaitObject.Fd, WaitObject.MutexCond {
    /**
     * {@code FI_WAIT_FD}: a channel that an application {@link java.nio.channels.Selector}
     * reports readable ({@code OP_READ}) while the queue has something to read. It is
     * non-blocking, may be registered with any number of selectors, and is never read by the
     * application. Call {@link Fabric#tryWait} before blocking on it.
     */
    record Fd(SelectableChannel channel) implements WaitObject {
    }

    /** {@code FI_WAIT_MUTEX_COND}: the lock and condition the provider signals under. */
    record MutexCond(Lock mutex, Condition cond) implements WaitObject {
    }
}
