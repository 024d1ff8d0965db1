package io.jofi.rsa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.rsa.channel.ExportedServices;
import io.jofi.rsa.channel.RsaCounters;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceException;
import org.osgi.service.remoteserviceadmin.EndpointDescription;
import org.osgi.service.remoteserviceadmin.RemoteConstants;

/**
 * An exporter in a JVM of its own, killed with SIGKILL while calls wait for it: every pending
 * call fails with a ServiceException within the ping period plus the provider's detection
 * bound (shm: a liveness check; tcp: the kernel's reset).
 */
class KilledExporterTest {
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void pendingCallsFailSoonAfterTheExporterIsKilled(String provider) throws Exception {
        Process child = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
                System.getProperty("java.class.path"), ExporterProcess.class.getName(), provider)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        ChannelPool pool = new ChannelPool(RsaPair.FABRICS, RsaPair.settings(30_000, null), new ExportedServices(),
                new RsaCounters());
        try {
            Map<String, Object> props = new HashMap<>();
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            for (String line; (line = out.readLine()) != null && !line.equals("READY"); ) {
                int eq = line.indexOf('=');
                props.put(line.substring(0, eq), line.substring(eq + 1));
            }
            props.put(Constants.OBJECTCLASS, new String[] {Echo.class.getName()});
            props.put(EndpointProperties.ADDRESSES, ((String) props.get(EndpointProperties.ADDRESSES)).split(","));
            props.put(RemoteConstants.SERVICE_IMPORTED_CONFIGS, EndpointProperties.CONFIG_TYPE);
            props.put(EndpointProperties.SERVICE, Long.parseLong((String) props.get(EndpointProperties.SERVICE)));
            props.remove(RemoteConstants.SERVICE_INTENTS);
            JofiDistributionProvider importer = new JofiDistributionProvider(pool, provider);
            Echo echo = (Echo) importer.importEndpoint(Echo.class.getClassLoader(), null, new Class[] {Echo.class},
                    new EndpointDescription(props));
            assertEquals("hello child", echo.greet("child"));

            List<CompletableFuture<String>> calls = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                calls.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return echo.slow(25_000);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            Thread.sleep(500);
            long killed = System.nanoTime();
            child.destroyForcibly(); // SIGKILL
            child.waitFor(10, TimeUnit.SECONDS);
            for (CompletableFuture<String> call : calls) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(15, TimeUnit.SECONDS));
                ServiceException se = (ServiceException) e.getCause();
                assertEquals(ServiceException.REMOTE, se.getType());
                assertTrue(se.getMessage().contains("lost"), se.getMessage());
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            System.out.println(provider + ": pending calls failed " + millis + " ms after the kill");
            assertTrue(millis < 5_000, "the callers learnt of the killed exporter after " + millis + " ms");
        } finally {
            child.destroyForcibly();
            pool.close("test over");
        }
    }
}
