package io.jofi.examples;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.mavenBundle;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import io.jofi.examples.osgi.FabricChoice;
import java.io.File;
import java.util.Objects;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * The example component ({@code io.jofi.examples.osgi.FabricChoiceComponent}) in a real Felix
 * with SCR, the api and util bundles, the rxm layer, the shm and tcp provider bundles and this
 * module's freshly built bundle: it uses shm (getInfo's order: shm before tcp), moves to tcp when the shm bundle
 * stops, back to shm when it starts again, has no provider when both are stopped, and takes
 * tcp when that starts — the component itself never restarts.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class FabricChoiceComponentIT {
    @Inject
    private BundleContext context;

    @Inject
    private FabricChoice choice;

    @Configuration
    public Option[] config() {
        return new Option[] {
            junitBundles(),
            cleanCaches(true),
            systemProperty("org.ops4j.pax.logging.DefaultServiceLog.level").value("WARN"),
            // Felix SCR 2.2 needs the DS API, promise and function as bundles of their own.
            mavenBundle("org.osgi", "org.osgi.util.function").version(version("osgi.util.function")),
            mavenBundle("org.osgi", "org.osgi.util.promise").version(version("osgi.util.promise")),
            mavenBundle("org.osgi", "org.osgi.service.component").version(version("osgi.service.component")),
            mavenBundle("org.apache.felix", "org.apache.felix.scr").version(version("felix.scr")),
            // provider settings come through Config Admin
            mavenBundle("org.apache.felix", "org.apache.felix.configadmin").version(version("felix.configadmin")),
            built("api"), built("util"), built("rxm"), built("shm"), built("tcp"), built("examples"),
        };
    }

    @Test
    public void theComponentFollowsProvidersAsTheirBundlesStopAndStart() throws Exception {
        Bundle shm = installed("io.jofi.provider.shm");
        Bundle tcp = installed("io.jofi.provider.tcp");
        awaitProvider("shm");

        shm.stop();
        awaitProvider("tcp;ofi_rxm"); // RDM over tcp is the layered provider
        assertTrue(choice.history().toString(), choice.history().contains("shm departed"));

        shm.start();
        awaitProvider("shm");

        shm.stop();
        tcp.stop();
        awaitProvider(null);
        assertEquals("no provider", last());

        tcp.start();
        awaitProvider("tcp;ofi_rxm"); // RDM over tcp is the layered provider
        assertEquals("using tcp;ofi_rxm", last());
    }

    private String last() {
        return choice.history().get(choice.history().size() - 1);
    }

    /** Waits (at most 10 s) until the component uses {@code expected}. */
    private void awaitProvider(String expected) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!Objects.equals(expected, choice.provider()) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals("history " + choice.history(), expected, choice.provider());
    }

    private Bundle installed(String bsn) {
        for (Bundle b : context.getBundles()) {
            if (bsn.equals(b.getSymbolicName())) {
                return b;
            }
        }
        throw new AssertionError("bundle " + bsn + " is not installed");
    }

    /** A bundle this build made ({@code jofi.bundle.KEY}, set by the examples pom through failsafe). */
    private static Option built(String key) {
        String path = System.getProperty("jofi.bundle." + key);
        if (path == null || !new File(path).isFile()) {
            throw new IllegalStateException("jofi.bundle." + key + " = " + path
                    + ": run the IT through Maven (mvn -pl examples -am verify)");
        }
        return bundle(new File(path).toURI().toString());
    }

    private static String version(String key) {
        return Objects.requireNonNull(System.getProperty("jofi.version." + key),
                "jofi.version." + key + ": run the IT through Maven");
    }
}
