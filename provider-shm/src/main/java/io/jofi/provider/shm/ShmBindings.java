package io.jofi.provider.shm;

import io.jofi.Fi;
import io.jofi.spi.util.CompletionBatch;
import io.jofi.spi.util.UtilAddressVector;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import io.jofi.spi.util.UtilEventQueue;

/**
 * The objects an shm endpoint completes into and resolves through (CQs, counters, EQ, AV),
 * copied from the endpoint ({@link io.jofi.spi.util.UtilEndpoint}) at every bind so that the
 * parts' data path reads plain fields. Written under the endpoint's lock before
 * {@code enable} (bindings are sealed then); read under it afterwards.
 */
final class ShmBindings {
    /**
     * The receive completions of one drain pass, staged by the receiver and published together at the pass's
     * end; a transmit entry, a remote write's CQ data or an RMA completion publishes them first (they came first,
     * and the CQ may be the same).
     */
    final CompletionBatch staged = ShmRingReader.newBatch();
    UtilCompletionQueue txCq;
    UtilCompletionQueue rxCq;
    UtilEventQueue eq;
    UtilAddressVector av;
    UtilCounter sendCntr;
    UtilCounter recvCntr;
    UtilCounter readCntr;
    UtilCounter writeCntr;
    UtilCounter remoteReadCntr;
    UtilCounter remoteWriteCntr;

    /** The counter an operation counted on {@code role} ({@code FI_SEND}, {@code FI_READ}, {@code FI_WRITE}) uses, or null. */
    UtilCounter counterOf(long role) {
        if (role == Fi.FI_SEND) {
            return sendCntr;
        }
        if (role == Fi.FI_READ) {
            return readCntr;
        }
        if (role == Fi.FI_WRITE) {
            return writeCntr;
        }
        return null;
    }

    /** Publishes the staged receive completions of the pass under way, ahead of an entry that came after them. */
    void flushStaged() {
        if (!staged.isEmpty()) {
            staged.flush();
        }
    }

    /** Counts a success on {@code c} when one is bound. */
    static void count(UtilCounter c) {
        if (c != null) {
            c.increment();
        }
    }
}
