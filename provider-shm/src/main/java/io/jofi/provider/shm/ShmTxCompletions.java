package io.jofi.provider.shm;

import io.jofi.Fi;
import io.jofi.spi.util.ProgressEngine;
import io.jofi.spi.util.UtilCounter;

/**
 * The transmit side's room and completions: how many application operations may be in flight
 * (the transmit queue's size), the room a reporting operation reserves in the transmit CQ at its
 * post, its success or error entry, the counter it counts on, and the wake-up that has an
 * {@code FI_TRANSMIT_COMPLETE} completion's life check made. A drain pass's receive completions
 * still staged are published before any entry of ours, which must not overtake them (the CQ may
 * be the same). Runs under the endpoint's lock.
 */
final class ShmTxCompletions {
    private final ShmBindings bound;
    /** Application operations in flight at most (the larger of the tx and rx sizes). */
    private final int queueSize;
    /** Woken when an FI_TRANSMIT_COMPLETE send waits for a life check (AUTO: its thread makes it). */
    private final ProgressEngine engine;
    /** Application operations in flight (queued or awaiting an answer). */
    private int inFlight;

    ShmTxCompletions(ShmBindings bound, int queueSize, ProgressEngine engine) {
        this.bound = bound;
        this.queueSize = queueSize;
        this.engine = engine;
    }

    /** Whether the transmit queue is full: a new application operation is refused ({@code -EAGAIN}). */
    boolean queueFull() {
        return inFlight >= queueSize;
    }

    /** An application operation is in flight from now on (queued towards its peer). */
    void started() {
        inFlight++;
    }

    /** An application operation {@link #started} has completed (successfully or not). */
    void finished() {
        inFlight--;
    }

    /** Reserves room for one entry in the transmit CQ (bound when an operation reports: UtilEndpoint's -ENOCQ); 0 or -errno. */
    int reserve() {
        return bound.txCq.reserve();
    }

    /** Gives back a room {@link #reserve} took (the operation completed without an entry). */
    void unreserve() {
        bound.txCq.unreserve();
    }

    /** Whether a transmit CQ is bound (close gives back the rooms of the operations it drops). */
    boolean hasCq() {
        return bound.txCq != null;
    }

    /** A success entry into the reserved room. */
    void success(Object context, long cqFlags) {
        bound.flushStaged();
        bound.txCq.complete(context, cqFlags, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
    }

    /** An error entry ({@code err} positive) into the reserved room. */
    void error(Object context, long cqFlags, int err) {
        bound.flushStaged();
        bound.txCq.completeError(context, cqFlags, 0, null, 0, 0, 0, 0, err, 0, null, 0, Fi.FI_ADDR_NOTAVAIL);
    }

    /** The counter an operation on {@code role} ({@code FI_SEND}, {@code FI_READ}, {@code FI_WRITE}) counts on, or null. */
    UtilCounter counterOf(long role) {
        return bound.counterOf(role);
    }

    /**
     * The first {@code FI_TRANSMIT_COMPLETE} send now waits for a life check of its peer: the AUTO
     * progress thread is woken to make it (in MANUAL the application's next read makes it).
     */
    void lifeCheckWanted() {
        if (!engine.isManual()) {
            engine.wakeup();
        }
    }
}
