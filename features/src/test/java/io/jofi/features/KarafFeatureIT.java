package io.jofi.features;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A real Apache Karaf (the minimal distribution from Maven Central) installs the {@code jofi}
 * feature from this module's features XML, lists the providers with {@code jofi:info -l}, and
 * swaps them: tcp leaves and comes back through {@code jofi:providers stop|start tcp}, shm
 * through Karaf's own {@code bundle:stop|start}; then {@code jofi-rsa} and {@code jofi-rsa-zookeeper}
 * install (Aries RSA, JOFI's distribution provider, ZooKeeper wrapped by Karaf's wrap feature: Active),
 * and {@code jofi-verbs} (verbs is listed, available or not, since this machine may have no RDMA device).
 *
 * <p>Skipped, with the reason, only when the distribution is not in the local repository and
 * cannot be downloaded because Maven runs offline or the network is unreachable
 * ({@link KarafDistribution}).
 */
class KarafFeatureIT {
    private static final String GROUP = "io.jofi";
    private static final String ARTIFACT = "io.jofi.features";

    @Test
    void featureInstallsListsProvidersAndSwapsThem() throws Exception {
        long t0 = System.nanoTime();
        String karafVersion = Props.required("jofi.karaf.version");
        Path featuresXml = Path.of(Props.required("jofi.features.xml"));
        String version = projectVersion(featuresXml);
        Path distribution = KarafDistribution.tarGz(karafVersion);

        try (KarafInstance karaf = KarafInstance.unpack(distribution, Path.of(Props.required("jofi.karaf.work")))) {
            karaf.stage(featuresXml, GROUP, ARTIFACT, version, KarafFeatureIT::artifactFile);
            karaf.stageSystemBundles(Props.required("jofi.karaf.system.bundles"));
            karaf.start();

            // one command per client call: after feature:install the client prints nothing more
            karaf.client("feature:repo-add mvn:" + GROUP + "/" + ARTIFACT + "/" + version + "/xml/features");
            karaf.client("feature:install jofi");
            String install = karaf.client("bundle:list -s -t 0");
            for (String bsn : new String[] {"io.jofi.api", "io.jofi.util", "io.jofi.provider.rxm", "io.jofi.provider.tcp", "io.jofi.provider.shm",
                "io.jofi.tools", "org.apache.felix.scr"}) {
                assertTrue(Pattern.compile("(?m)\\|\\s*Active\\s*\\|.*\\|\\s*" + Pattern.quote(bsn) + "\\s*$")
                        .matcher(install).find(), bsn + " is not Active after feature:install jofi:\n" + install);
            }

            String listed = karaf.client("jofi:info -l");
            assertListed(listed, "tcp", true);
            assertListed(listed, "shm", true);

            // the jofi command swaps tcp: it leaves getInfo and the list, then comes back
            String stopped = karaf.client("jofi:providers stop tcp");
            assertTrue(stopped.contains("stop: io.jofi.provider.tcp"), stopped);
            String withoutTcp = karaf.client("jofi:info -l");
            assertListed(withoutTcp, "tcp", false);
            assertListed(withoutTcp, "shm", true);
            karaf.client("jofi:providers start tcp");
            assertListed(karaf.client("jofi:info -l"), "tcp", true);

            // Karaf's own bundle commands swap shm the same way
            karaf.client("bundle:stop io.jofi.provider.shm");
            String withoutShm = karaf.client("jofi:info -l");
            assertListed(withoutShm, "shm", false);
            assertListed(withoutShm, "tcp", true);
            karaf.client("bundle:start io.jofi.provider.shm");
            assertListed(karaf.client("jofi:info -l"), "shm", true);

            // remote services: Aries RSA with JOFI's distribution provider;
            // -r (no auto refresh): the Event Admin API it brings satisfies an optional import of
            // Karaf's JAAS modules, and refreshing them would cut this very ssh session
            karaf.client("feature:install -r jofi-rsa");
            String rsa = karaf.client("bundle:list -s -t 0");
            for (String bsn : new String[] {"io.jofi.rsa", "org.apache.aries.rsa.core", "org.apache.aries.rsa.spi",
                "org.apache.aries.rsa.topology-manager", "org.apache.aries.rsa.discovery.local"}) {
                assertTrue(Pattern.compile("(?m)\\|\\s*Active\\s*\\|.*\\|\\s*" + Pattern.quote(bsn) + "\\s*$")
                        .matcher(rsa).find(), bsn + " is not Active after feature:install jofi-rsa:\n" + rsa);
            }

            // ZooKeeper discovery: Karaf's wrap feature first (a prerequisite), then ZooKeeper 3.8
            // wrapped as it installs (zookeeper-jute a fragment of it) and Aries' discovery bundle
            long zk = System.nanoTime();
            karaf.client("feature:install -r jofi-rsa-zookeeper");
            String zookeeper = karaf.client("bundle:list -s -t 0");
            for (String bsn : new String[] {"org.apache.zookeeper", "org.apache.aries.rsa.discovery.zookeeper",
                "org.apache.aries.rsa.discovery.local", "io.jofi.rsa"}) {
                assertTrue(Pattern.compile("(?m)\\|\\s*Active\\s*\\|.*\\|\\s*" + Pattern.quote(bsn) + "\\s*$")
                        .matcher(zookeeper).find(), bsn + " is not Active after feature:install jofi-rsa-zookeeper:\n" + zookeeper);
            }
            assertTrue(Pattern.compile("(?m)\\|\\s*Resolved\\s*\\|.*\\|\\s*org\\.apache\\.zookeeper\\.jute\\s*$")
                    .matcher(zookeeper).find(), "the zookeeper-jute fragment is not Resolved (attached to its host):\n" + zookeeper);
            System.out.printf("KarafFeatureIT: jofi-rsa-zookeeper installed and listed in %d ms%n",
                    (System.nanoTime() - zk) / 1_000_000L);
            // and it works, not only resolves: Aries' discovery connects with the wrapped client (its
            // protocol classes come from the zookeeper-jute fragment) to a real ZooKeeper server
            long connect = System.nanoTime();
            try (ForkedZooKeeper server = ForkedZooKeeper.start("127.0.0.1", KarafInstance.freeTcpPort(),
                    karaf.home().resolve("zookeeper-server"))) {
                karaf.configure("org.apache.aries.rsa.discovery.zookeeper", Map.of("zookeeper.host", server.host(),
                        "zookeeper.port", Integer.toString(server.port())));
                assertTrue(karaf.awaitLog("Connection to ZooKeeper established", 60),
                        "Aries' ZooKeeper discovery did not connect to " + server.host() + ":" + server.port() + " within 60 s: "
                                + karaf.home().resolve("data/log/karaf.log"));
                System.out.printf("KarafFeatureIT: ZooKeeper server started and discovery connected in %d ms%n",
                        (System.nanoTime() - connect) / 1_000_000L);
            }

            // the optional verbs feature resolves (JNA included); without an RDMA device the
            // provider is listed as unavailable, which is still listed
            // -r (no auto refresh): JNA also satisfies optional imports of Karaf's jline, and
            // refreshing the shell would cut this very ssh session
            karaf.client("feature:install -r jofi-verbs");
            assertListed(karaf.client("jofi:info -l"), "verbs", true);
        }
        System.out.printf("KarafFeatureIT: Karaf %s, unpack to shutdown in %d s%n", karafVersion,
                (System.nanoTime() - t0) / 1_000_000_000L);
    }

    /**
     * Whether {@code provider} is registered ({@code NAME:} then its {@code version:}); a provider
     * whose bundle is stopped is listed as such ({@code state: stopped ...}), never as registered.
     */
    private static void assertListed(String output, String provider, boolean expected) {
        boolean listed = Pattern.compile("(?m)^\\s*" + Pattern.quote(provider) + ":\\s*\\R\\s*version:").matcher(output).find();
        if (expected) {
            assertTrue(listed, provider + " is not listed by jofi:info -l:\n" + output);
        } else {
            assertFalse(listed, provider + " is still listed by jofi:info -l:\n" + output);
            assertTrue(Pattern.compile("(?m)^\\s*" + Pattern.quote(provider) + ":\\s*\\R\\s*state: stopped").matcher(output).find(),
                    provider + " is not shown as stopped by jofi:info -l:\n" + output);
        }
    }

    /** The version the features XML was filtered with: its repository name is {@code jofi-VERSION}. */
    private static String projectVersion(Path featuresXml) throws java.io.IOException {
        var m = Pattern.compile("<features name=\"jofi-([^\"]+)\"").matcher(Files.readString(featuresXml));
        if (!m.find()) {
            throw new IllegalStateException(featuresXml + " has no <features name=\"jofi-VERSION\">");
        }
        return m.group(1);
    }

    /** The file of a bundle the features XML names, from {@code jofi.artifact.<artifactId>} (the pom). */
    private static Path artifactFile(String artifactId) {
        Path file = Path.of(Props.required("jofi.artifact." + artifactId));
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("jofi.artifact." + artifactId + " = " + file
                    + " is not a file: build with -am (mvn verify -pl features -am)");
        }
        return file;
    }
}
