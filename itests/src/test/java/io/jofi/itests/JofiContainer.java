package io.jofi.itests;

import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.composite;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.mavenBundle;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.File;
import org.ops4j.pax.exam.Option;

/**
 * The container every itest boots: Felix (the native container's framework), Felix SCR with
 * the OSGi APIs it needs as bundles of their own, the freshly built JOFI bundles of this
 * reactor, and the fixture provider or the real tcp provider ({@link #tcp()}).
 *
 * <p>Where things come from (all set by the itests pom through failsafe, so nothing here
 * names a version or a path):
 * <ul>
 * <li>{@code jofi.bundle.*}: the file of each reactor bundle (maven-dependency-plugin's
 *     {@code properties} goal), loaded with {@code bundle(file URI)} so that the test sees the
 *     jar this build just made, never a stale one from the local repository;</li>
 * <li>{@code jofi.version.*}: the versions of the runtime bundles (the root pom's
 *     properties), resolved by {@code mavenBundle} from the local repository named by
 *     {@code org.ops4j.pax.url.mvn.localRepository}.</li>
 * </ul>
 */
public final class JofiContainer {
    /** Bundle-SymbolicName of the api bundle. */
    public static final String API_BSN = "io.jofi.api";
    /** Bundle-SymbolicName of the tools bundle. */
    public static final String TOOLS_BSN = "io.jofi.tools";
    /** Bundle-SymbolicName of the fixture provider bundle. */
    public static final String FIXTURE_BSN = "io.jofi.itests.fixture";
    /** The name the fixture provider answers to. */
    public static final String FIXTURE_NAME = "fixture";
    /** Bundle-SymbolicName of the tcp provider bundle ({@code provider-tcp/}). */
    public static final String TCP_BSN = "io.jofi.provider.tcp";
    /** The name the tcp provider answers to. */
    public static final String TCP_NAME = "tcp";
    /** The prefix of every thread the tcp provider starts (its progress engines). */
    public static final String TCP_THREADS = "jofi-tcp";
    /** Bundle-SymbolicName of the shm provider bundle ({@code provider-shm/}). */
    public static final String SHM_BSN = "io.jofi.provider.shm";
    /** The name the shm provider answers to. */
    public static final String SHM_NAME = "shm";
    /** The prefix of every thread the shm provider starts (its progress engines). */
    public static final String SHM_THREADS = "jofi-shm";

    private JofiContainer() {
    }

    /** Everything: runtime, api, util, tools and the fixture provider. */
    public static Option all() {
        return composite(runtime(), jofiBundle("api"), jofiBundle("util"), jofiBundle("tools"), jofiBundle("fixture"));
    }

    /**
     * The runtime, the api bundle and the real tcp provider bundle of this reactor
     * ({@code jofi.bundle.tcp}), and no other provider, so that everything {@code getInfo}
     * answers is tcp's.
     */
    public static Option tcp() {
        return composite(runtime(), jofiBundle("api"), jofiBundle("util"), jofiBundle("rxm"), jofiBundle("tcp"));
    }

    /**
     * The runtime, the api bundle and the real shm provider bundle of this reactor
     * ({@code jofi.bundle.shm}), and no other provider.
     */
    public static Option shm() {
        return composite(runtime(), jofiBundle("api"), jofiBundle("util"), jofiBundle("shm"));
    }

    /**
     * The runtime, the api bundle and both real local-capable providers of this reactor, shm
     * and tcp ({@code jofi.bundle.shm}, {@code jofi.bundle.tcp}): getInfo answers shm first
     * (the default order verbs, shm, tcp), tcp while shm is away.
     */
    public static Option shmAndTcp() {
        return composite(runtime(), jofiBundle("api"), jofiBundle("util"), jofiBundle("rxm"), jofiBundle("shm"), jofiBundle("tcp"));
    }

    /** JUnit inside the container, the logging levels, SCR and what SCR 2.2 needs to resolve. */
    public static Option runtime() {
        return composite(
                junitBundles(),
                cleanCaches(true),
                systemProperty("org.ops4j.pax.logging.DefaultServiceLog.level").value("WARN"),
                // Felix SCR 2.2 needs the DS API, promise and function as bundles of their own.
                mavenBundle("org.osgi", "org.osgi.util.function").version(version("osgi.util.function")),
                mavenBundle("org.osgi", "org.osgi.util.promise").version(version("osgi.util.promise")),
                mavenBundle("org.osgi", "org.osgi.service.component").version(version("osgi.service.component")),
                mavenBundle("org.apache.felix", "org.apache.felix.scr").version(version("felix.scr")),
                // What the tools bundle imports (Gogo's command API, picocli), and Config Admin
                // for provider settings.
                mavenBundle("org.apache.felix", "org.apache.felix.gogo.runtime").version(version("gogo.runtime")),
                mavenBundle("info.picocli", "picocli").version(version("picocli")),
                mavenBundle("org.apache.felix", "org.apache.felix.configadmin").version(version("felix.configadmin")));
    }

    /**
     * A bundle of this reactor, by the key of its {@code jofi.bundle.KEY} system property.
     *
     * @throws IllegalStateException when the property is missing (the test was not started
     *         by failsafe with the itests pom) or names no file (the module was not built)
     */
    public static Option jofiBundle(String key) {
        String property = "jofi.bundle." + key;
        String path = System.getProperty(property);
        if (path == null || path.isEmpty() || path.startsWith("${")) {
            throw new IllegalStateException("system property " + property
                    + " is not set: run the itests through Maven (mvn verify -pl itests -am)");
        }
        File file = new File(path);
        if (!file.isFile()) {
            throw new IllegalStateException(property + " = " + path
                    + " is not a built jar: build the reactor first (mvn verify -pl itests -am)");
        }
        return bundle(file.toURI().toString());
    }

    private static String version(String key) {
        String property = "jofi.version." + key;
        String value = System.getProperty(property);
        if (value == null || value.isEmpty() || value.startsWith("${")) {
            throw new IllegalStateException("system property " + property
                    + " is not set: run the itests through Maven (mvn verify -pl itests -am)");
        }
        return value;
    }
}
