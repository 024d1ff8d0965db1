package io.jofi.rsa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.aries.rsa.spi.Endpoint;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.osgi.framework.ServiceException;

/**
 * What the channel pool does when the {@code Fabrics} listener reports a provider's departure
 * (the component forwards {@code providerRemoved} to it): calls in flight under load complete or
 * fail naming the cause, none hangs, and the next export and import work on a fresh channel.
 * The departure of a real provider bundle in a running framework is the two-container tests'.
 */
class ProviderDepartureTest {
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void importerSideDepartureUnderLoadLosesNoCall(String provider) throws Exception {
        try (RsaPair pair = new RsaPair(provider)) {
            Echo echo = pair.importAs(Echo.class, pair.export(Echo.class, new EchoImpl(), Map.of()));
            assertEquals(2, echo.add(1, 1));
            AtomicInteger issued = new AtomicInteger();
            AtomicInteger succeeded = new AtomicInteger();
            AtomicInteger failed = new AtomicInteger();
            List<String> causes = new java.util.concurrent.CopyOnWriteArrayList<>();
            List<CompletableFuture<Void>> callers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                callers.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < 100_000 && failed.get() == 0 || i < 1; i++) {
                        issued.incrementAndGet();
                        try {
                            echo.add(i, 1);
                            succeeded.incrementAndGet();
                        } catch (ServiceException e) {
                            failed.incrementAndGet();
                            causes.add(e.getMessage());
                            return;
                        }
                    }
                }));
            }
            Thread.sleep(300);
            pair.importerPool.providerRemoved(provider, "fabric provider " + provider + " departed (ENODEV)");
            CompletableFuture.allOf(callers.toArray(new CompletableFuture[0])).get(10, TimeUnit.SECONDS);
            assertEquals(issued.get(), succeeded.get() + failed.get());
            assertTrue(failed.get() > 0, "no call saw the departure");
            for (String cause : causes) {
                assertTrue(cause.contains("departed") || cause.contains("closed"), cause);
            }
            // Aries imports again after the re-registration: a new proxy opens a new channel
            Echo again = pair.importAs(Echo.class, pair.export(Echo.class, new EchoImpl(), Map.of()));
            assertEquals(5, again.add(2, 3));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void exporterSideDepartureFailsPendingCallsAndTheReExportAnswers(String provider) throws Exception {
        try (RsaPair pair = new RsaPair(provider)) {
            Endpoint first = pair.export(Echo.class, new EchoImpl(), Map.of());
            Echo echo = pair.importAs(Echo.class, first);
            assertEquals(2, echo.add(1, 1));
            CompletableFuture<String> pending = CompletableFuture.supplyAsync(() -> {
                try {
                    return echo.slow(20_000);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(300);
            pair.exporterPool.providerRemoved(provider, "fabric provider " + provider + " departed (ENODEV)");
            first.close();
            ExecutionException e = assertThrows(ExecutionException.class, () -> pending.get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof ServiceException, String.valueOf(e.getCause()));
            Endpoint second = pair.export(Echo.class, new EchoImpl(), Map.of());
            assertNotEquals(first.description().getId(), second.description().getId());
            assertEquals("hello again", pair.importAs(Echo.class, second).greet("again"));
        }
    }
}
