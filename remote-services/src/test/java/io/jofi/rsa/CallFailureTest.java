package io.jofi.rsa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.osgi.framework.ServiceException;

/** Calls that cannot get a reply: a timeout, a peer that goes away, a wrong secret. */
class CallFailureTest {
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aSlowCallTimesOutAndTheNextOneWorks(String provider) {
        // 1 s: long enough for a handshake on a loaded machine, far below the 5 s the call takes
        try (RsaPair pair = new RsaPair(provider, RsaPair.settings(30_000, null), RsaPair.settings(1_000, null))) {
            Echo echo = pair.importAs(Echo.class, pair.export(Echo.class, new EchoImpl(), Map.of()));
            assertEquals(3, echo.add(1, 2)); // greeted before the clock matters
            long start = System.nanoTime();
            ServiceException e = assertThrows(ServiceException.class, () -> echo.slow(5_000));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(ServiceException.REMOTE, e.getType());
            assertTrue(e.getMessage().contains("within"), e.getMessage());
            assertTrue(millis >= 950 && millis < 4_000, "timed out after " + millis + " ms");
            assertEquals(7, echo.add(3, 4));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aReplyThatComesAfterItsCallTimedOutNeverAnswersTheCallersNextCall(String provider) throws Exception {
        // the caller's waiter is reused: the first call's late reply (at about 3 s) arrives while the
        // second call from the same thread (from about 2 s to 3.5 s) waits in the same object
        try (RsaPair pair = new RsaPair(provider, RsaPair.settings(30_000, null), RsaPair.settings(2_000, null))) {
            Echo echo = pair.importAs(Echo.class, pair.export(Echo.class, new EchoImpl(), Map.of()));
            assertEquals(3, echo.add(1, 2));
            assertThrows(ServiceException.class, () -> echo.slow(3_000));
            assertEquals("slept 1500", echo.slow(1_500)); // waits while the late reply comes
            assertEquals(7, echo.add(3, 4));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void anEndpointTimeoutPropertyWinsOverTheDefault(String provider) {
        try (RsaPair pair = new RsaPair(provider)) {
            Echo echo = pair.importAs(Echo.class, pair.export(Echo.class, new EchoImpl(),
                    Map.of(EndpointProperties.TIMEOUT, 1_000L)));
            long start = System.nanoTime();
            assertThrows(ServiceException.class, () -> echo.slow(10_000));
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "the 30 s default applied");
            CompletableFuture<Integer> async = echo.square(5);
            assertEquals(25, async.join());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void pendingCallsFailWhenTheExportersEndpointCloses(String provider) throws Exception {
        try (RsaPair pair = new RsaPair(provider)) {
            EchoImpl impl = new EchoImpl();
            Echo echo = pair.importAs(Echo.class, pair.export(Echo.class, impl, Map.of()));
            assertEquals(2, echo.add(1, 1));
            List<CompletableFuture<String>> calls = slowCalls(echo, 4);
            // the exporter runs all four now (a fixed sleep was too short on a loaded machine)
            assertTrue(impl.slowCallsStarted.tryAcquire(4, 20, TimeUnit.SECONDS), "the four calls did not reach the exporter");
            long start = System.nanoTime();
            pair.exporterPool.close("exporter container stops");
            assertAllFailPromptly(calls, start, true);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aCallMadeRightAfterTheExportersEndpointClosedFailsPromptly(String provider) {
        try (RsaPair pair = new RsaPair(provider)) {
            Echo echo = pair.importAs(Echo.class, pair.export(Echo.class, new EchoImpl(), Map.of()));
            assertEquals(2, echo.add(1, 1)); // the session stands: the next call goes out without a handshake
            pair.exporterPool.close("exporter container stops");
            long start = System.nanoTime();
            ServiceException e = assertThrows(ServiceException.class, () -> echo.slow(20_000));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(ServiceException.REMOTE, e.getType());
            assertTrue(e.getMessage().contains("lost") || e.getMessage().contains("could not send")
                    || e.getMessage().contains("greet"), e.getMessage());
            // the call timeout is 30 s: the failure came from the peer's loss, not from the clock
            assertTrue(millis < 5_000, "the call failed after " + millis + " ms: " + e.getMessage());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void callsRacingTheExportersCloseAllFailPromptly(String provider) throws Exception {
        try (RsaPair pair = new RsaPair(provider)) {
            Echo echo = pair.importAs(Echo.class, pair.export(Echo.class, new EchoImpl(), Map.of()));
            assertEquals(2, echo.add(1, 1));
            List<CompletableFuture<String>> calls = slowCalls(echo, 8);
            // no wait: some calls are with the exporter, some on their way, some not sent yet
            long start = System.nanoTime();
            pair.exporterPool.close("exporter container stops");
            assertAllFailPromptly(calls, start, false);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aWrongSecretIsRefusedAndCounted(String provider) {
        try (RsaPair pair = new RsaPair(provider, RsaPair.settings(30_000, "right"), RsaPair.settings(5_000, "wrong"))) {
            Echo echo = pair.importAs(Echo.class, pair.export(Echo.class, new EchoImpl(), Map.of()));
            ServiceException e = assertThrows(ServiceException.class, () -> echo.greet("intruder"));
            assertEquals(ServiceException.REMOTE, e.getType());
            assertTrue(e.getMessage().contains("secret"), e.getMessage());
            assertEquals(1, pair.exporterCounters.refusedImporters());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void aMissingSecretIsRefusedAndTheRightOneAdmitted(String provider) {
        try (RsaPair none = new RsaPair(provider, RsaPair.settings(30_000, "right"), RsaPair.settings(5_000, null))) {
            Echo echo = none.importAs(Echo.class, none.export(Echo.class, new EchoImpl(), Map.of()));
            ServiceException e = assertThrows(ServiceException.class, () -> echo.greet("anyone"));
            assertTrue(e.getMessage().contains("requires the shared secret"), e.getMessage());
        }
        try (RsaPair right = new RsaPair(provider, RsaPair.settings(30_000, "right"), RsaPair.settings(5_000, "right"))) {
            Echo echo = right.importAs(Echo.class, right.export(Echo.class, new EchoImpl(), Map.of()));
            assertEquals("hello friend", echo.greet("friend"));
            assertEquals(0, right.exporterCounters.refusedImporters());
        }
    }

    /** {@code n} callers of {@code slow(20 s)}, each on a thread of its own. */
    private static List<CompletableFuture<String>> slowCalls(Echo echo, int n) {
        List<CompletableFuture<String>> calls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            calls.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return echo.slow(20_000);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        return calls;
    }

    /**
     * Every call fails with a REMOTE {@link ServiceException} within 5 s of {@code start} (the call
     * timeout is 30 s: the peer's loss failed them, not the clock); {@code lostPeer}: its message
     * names the lost peer or the failed send.
     */
    private static void assertAllFailPromptly(List<CompletableFuture<String>> calls, long start, boolean lostPeer) {
        for (CompletableFuture<String> call : calls) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
            ServiceException se = (ServiceException) e.getCause();
            assertEquals(ServiceException.REMOTE, se.getType());
            if (lostPeer) {
                assertTrue(se.getMessage().contains("lost") || se.getMessage().contains("could not send"), se.getMessage());
            }
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < 5_000, "the callers learnt of the lost peer after " + millis + " ms");
    }
}
