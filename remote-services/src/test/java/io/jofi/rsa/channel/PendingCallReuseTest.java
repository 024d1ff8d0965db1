package io.jofi.rsa.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * A synchronous caller's waiter is reused call after call: whatever comes for an earlier use
 * (a reply after the caller timed out, a send failure, a lost peer) never settles a later one.
 */
class PendingCallReuseTest {
    private final PendingCalls table = new PendingCalls();
    private final PendingCall waiter = new PendingCall();

    private long start(PendingCall call, long peer) {
        call.prepare(peer, "peer " + peer, System.nanoTime() + 1_000_000_000L, null, null);
        table.add(call);
        return call.id;
    }

    /** What the caller does when its deadline passed before a reply. */
    private void timeOut(long id) {
        assertSame(waiter, table.take(id));
        waiter.completeExceptionally(new TimeoutException());
    }

    @Test
    void aReplyAfterTheTimeoutFindsNothingAndTheNextUseGetsItsOwnReply() throws Exception {
        long first = start(waiter, 1);
        assertFalse(waiter.awaitSettled(System.nanoTime() + 1_000_000)); // the reply is late
        timeOut(first);
        assertFalse(waiter.busy());

        long second = start(waiter, 1);
        assertNotEquals(first, second);
        assertNull(table.take(first), "the late reply to the first use took the second");
        assertFalse(waiter.awaitSettled(System.nanoTime() + 1_000_000), "the late reply settled the second use");
        assertTrue(waiter.busy());

        assertSame(waiter, table.take(second));
        waiter.complete("second");
        assertTrue(waiter.awaitSettled(System.nanoTime()));
        assertEquals("second", waiter.outcome());
        assertTrue(table.isEmpty());
    }

    @Test
    void aSettlerHoldingTheObjectFromAnEarlierUseCannotClaimTheNextOne() {
        long first = start(waiter, 1);
        timeOut(first);
        long second = start(waiter, 1);
        // a completer that read the object for the first id before the caller moved on
        assertFalse(waiter.claim(first));
        assertFalse(waiter.awaitSettled(System.nanoTime() + 1_000_000));
        assertSame(waiter, table.take(second));
    }

    @Test
    void aLateReplyWhoseIdSharesTheSlotOfTheNextUseFindsNothing() throws Exception {
        long first = start(waiter, 1);
        timeOut(first);
        PendingCall other = new PendingCall();
        for (int i = 1; i < PendingCalls.SLOTS; i++) { // the next id lands in the first one's slot
            table.take(start(other, 2));
            other.completeExceptionally(new TimeoutException());
        }
        long second = start(waiter, 1);
        assertEquals(first % PendingCalls.SLOTS, second % PendingCalls.SLOTS);
        assertNull(table.take(first));
        assertFalse(table.isEmpty(), "the late reply emptied the slot of the waiting call");
        assertSame(waiter, table.take(second));
    }

    @Test
    void aLostPeerFailsOnlyTheCurrentUse() {
        long first = start(waiter, 1);
        timeOut(first);
        start(waiter, 2);
        table.failPeer(1, call -> new IllegalStateException("peer 1 lost"));
        assertFalse(waiter.awaitSettled(System.nanoTime() + 1_000_000), "a call to peer 2 failed for peer 1");
        table.failPeer(2, call -> new IllegalStateException("peer 2 lost"));
        assertTrue(waiter.awaitSettled(System.nanoTime()));
        ExecutionException e = assertThrows(ExecutionException.class, waiter::outcome);
        assertEquals("peer 2 lost", e.getCause().getMessage());
        assertTrue(table.isEmpty());
    }

    @Test
    void anAsynchronousCallSettlesTheFutureItWasGivenOnTheCallbackExecutor() throws Exception {
        CompletableFuture<Object> future = new CompletableFuture<>();
        Thread[] ran = new Thread[1];
        PendingCall call = new PendingCall(future, task -> {
            Thread t = new Thread(task, "callbacks");
            ran[0] = t;
            t.start();
        });
        long id = start(call, 1);
        assertSame(call, table.take(id));
        call.complete("done");
        assertEquals("done", future.get());
        ran[0].join();
        assertNull(table.take(id), "settled twice");
    }
}
