package io.jofi.provider.rxm;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import java.util.function.BooleanSupplier;

/**
 * One progress pass of an enabled {@link RxmEndpoint}, as libfabric's {@code rxm_cq.c} reads its
 * MSG CQ: the held connection ends first, the MSG event queue, what waited to be sent, then the
 * internal MSG CQ, each entry handed to the {@link RxmPacketHandler} under the endpoint's lock and, after
 * them, what waited once more (what they freed goes in the same pass, under the same lock);
 * with a timeout, a wait on the MSG CQ when the pass found nothing. Made when the endpoint is
 * enabled (the MSG CQ and the connections exist from then on).
 */
final class RxmMsgCqReader {
    /** The longest wait of one pass: the MSG EQ (connections) is read between waits. */
    static final long MAX_WAIT_NANOS = 5_000_000L;

    private final Object lock;
    private final BooleanSupplier enabled;
    private final CompletionQueue msgCq;
    private final RxmConnectionManager connections;
    private final RxmPacketHandler packets;
    private final CqEntry[] entries = new CqEntry[64];
    private final CqErrEntry errEntry = new CqErrEntry();
    private final CqEntry[] closingEntries = {new CqEntry(), new CqEntry(), new CqEntry(), new CqEntry()};
    private final CqErrEntry closingErr = new CqErrEntry();

    /**
     * @param lock    the endpoint's lock, held while an entry is handled
     * @param enabled whether the endpoint is still enabled (not closed nor departed)
     */
    RxmMsgCqReader(Object lock, BooleanSupplier enabled, CompletionQueue msgCq, RxmConnectionManager connections,
                   RxmPacketHandler packets) {
        this.lock = lock;
        this.enabled = enabled;
        this.msgCq = msgCq;
        this.connections = connections;
        this.packets = packets;
        for (int i = 0; i < entries.length; i++) {
            entries[i] = new CqEntry();
        }
    }

    /** One pass: the MSG EQ, then the MSG CQ; with a timeout, waits on the MSG CQ when idle. */
    int pass(long timeoutNanos) {
        int work = 0;
        boolean ending;
        synchronized (lock) {
            if (!enabled.getAsBoolean()) {
                return 0;
            }
            ending = connections.hasDeferredEnds();
        }
        if (ending) {
            // a held end (verbs: a CM event while completions sit in the MSG CQ):
            // the successes go first (a completed send must not fail with the end); an error
            // entry (a flush) stays for after the end, which fails what is left
            int n;
            while ((n = msgCq.read(entries, entries.length)) > 0) {
                work += drain(n);
            }
        }
        synchronized (lock) {
            if (!enabled.getAsBoolean()) {
                return work;
            }
            work += connections.endDeferred() + connections.progress() + packets.retryDeferred();
        }
        work += drain(msgCq.read(entries, entries.length));
        if (work == 0 && timeoutNanos > 0) {
            int ms = (int) Math.max(1, Math.min(timeoutNanos, MAX_WAIT_NANOS) / 1_000_000L);
            work += drain(msgCq.sread(entries, entries.length, 0, ms));
        }
        return work;
    }

    private int drain(int n) {
        if (n > 0) {
            synchronized (lock) {
                if (!enabled.getAsBoolean()) {
                    return 0; // departed or closed meanwhile: what was in flight has been ended
                }
                for (int i = 0; i < n; i++) {
                    packets.completed(entries[i]);
                }
                // what they freed (a credit, a transmit buffer, room in the MSG queue) goes in this pass:
                // the retry at the pass's start came before them
                return n + packets.retryDeferred();
            }
        }
        if (n == -Errno.EAVAIL && msgCq.readErr(errEntry, 0) == 1) {
            synchronized (lock) {
                if (!enabled.getAsBoolean()) {
                    return 0;
                }
                packets.failed(errEntry.context(), errEntry.err());
            }
            return 1;
        }
        return 0;
    }

    /** A MSG endpoint was closed (under the lock): what the MSG CQ holds is handled, not taken for lost. */
    void drainClosed() {
        while (true) {
            int n = msgCq.read(closingEntries, closingEntries.length);
            if (n > 0) {
                for (int i = 0; i < n; i++) {
                    packets.completed(closingEntries[i]);
                }
            } else if (n == -Errno.EAVAIL && msgCq.readErr(closingErr, 0) == 1) {
                packets.failed(closingErr.context(), closingErr.err());
            } else {
                return;
            }
        }
    }
}
