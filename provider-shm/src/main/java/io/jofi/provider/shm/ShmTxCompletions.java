package io.jofi.provider.shm;

import io.jofi.Fi;
import io.jofi.spi.util.CompletionBatch;
import io.jofi.spi.util.UtilCounter;

/**
 * Writes the transmit side's completions: the room a reporting operation reserves in the
 * transmit CQ at its post, its success or error entry, and the counter it counts on. A drain
 * pass's receive completions still staged are published before any entry of ours, which must
 * not overtake them (the CQ may be the same). Runs under the endpoint's lock.
 */
final class ShmTxCompletions {
    private final ShmBindings bound;
    /** Receive completions a drain pass staged ({@link ShmRecordDispatch}). */
    private final CompletionBatch staged;

    ShmTxCompletions(ShmBindings bound, CompletionBatch staged) {
        this.bound = bound;
        this.staged = staged;
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
        flushStaged();
        bound.txCq.complete(context, cqFlags, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
    }

    /** An error entry ({@code err} positive) into the reserved room. */
    void error(Object context, long cqFlags, int err) {
        flushStaged();
        bound.txCq.completeError(context, cqFlags, 0, null, 0, 0, 0, 0, err, 0, null, 0, Fi.FI_ADDR_NOTAVAIL);
    }

    /** The counter an operation on {@code role} ({@code FI_SEND}, {@code FI_READ}, {@code FI_WRITE}) counts on, or null. */
    UtilCounter counterOf(long role) {
        return bound.counterOf(role);
    }

    private void flushStaged() {
        if (!staged.isEmpty()) {
            staged.flush();
        }
    }
}
