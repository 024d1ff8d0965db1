package io.jofi.rsa.itests;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * What the tests share: the files the build handed over (framework jars, bundles, the launcher's
 * class path), the bundle sets of a container, free loopback ports, and endpoint-file bundles
 * for {@code discovery.local}.
 */
final class Harness {
    private Harness() {
    }

    static Path frameworkJar(String framework) {
        return existing("jofi.rsa.framework." + framework);
    }

    static String launcherClasspath() {
        return existing("jofi.rsa.launcher.classpath").toString();
    }

    static Path bundle(String name) {
        return existing("jofi.rsa.bundle." + name);
    }

    /** A fresh directory for one test's containers and files. */
    static Path workDirectory(String test) throws IOException {
        Path directory = Path.of(System.getProperty("jofi.rsa.work", "target/rsa-work"), test);
        if (Files.exists(directory)) {
            try (Stream<Path> old = Files.walk(directory)) {
                old.sorted((a, b) -> b.compareTo(a)).forEach(path -> path.toFile().delete());
            }
        }
        return Files.createDirectories(directory);
    }

    /**
     * Aries RSA's core (RSA, topology manager, endpoint-file discovery with its JAXB), the OSGi
     * services they import, and the agent; before the agent: what it configures (Config Admin).
     */
    static List<Path> ariesCore() {
        return bundles("slf4j.api", "slf4j.simple", "promise", "function", "event", "configadmin", "scr", "component",
                "activation", "jaxb.api", "locator", "jaxb.impl", "aries.spi", "aries.core", "aries.local", "agent",
                "aries.tm");
    }

    /** Aries' own socket transport, {@code aries.tcp}. */
    static List<Path> ariesTcp() {
        return bundles("aries.tcp");
    }

    /** Aries' HawtDispatch transport, {@code aries.fastbin}. */
    static List<Path> ariesFastbin() {
        return bundles("hawtbuf", "hawtdispatch", "aries.fastbin");
    }

    /** ZooKeeper discovery and its client library (wrapped, see {@link ZooKeeperBundle}). */
    static List<Path> zookeeperDiscovery() {
        try {
            return List.of(bundle("commons.io"), ZooKeeperBundle.file(), bundle("aries.zookeeper"));
        } catch (Exception e) {
            throw new IllegalStateException("cannot wrap ZooKeeper into a bundle", e);
        }
    }

    /** The class path of a plain ZooKeeper server JVM. */
    static String zookeeperServerClasspath() {
        return String.join(java.io.File.pathSeparator, launcherClasspath(), existing("jofi.rsa.jar.zookeeper").toString(),
                existing("jofi.rsa.jar.zookeeper.jute").toString(), existing("jofi.rsa.jar.metrics").toString(), existing("jofi.rsa.jar.snappy").toString(),
                bundle("commons.io").toString(),
                bundle("slf4j.api").toString(), bundle("slf4j.simple").toString());
    }

    /**
     * JOFI: the api, the provider toolkit, the rxm layer, the tcp and shm providers and the
     * distribution provider {@code io.jofi.rsa}.
     */
    static List<Path> jofi() {
        return bundles("jofi.api", "jofi.util", "jofi.rxm", "jofi.tcp", "jofi.shm", "jofi.rsa");
    }

    static boolean jofiRsaBuilt() {
        String file = System.getProperty("jofi.rsa.bundle.jofi.rsa");
        return file != null && !file.startsWith("${") && Files.isRegularFile(Path.of(file));
    }

    static List<Path> bundles(String... names) {
        List<Path> files = new ArrayList<>();
        for (String name : names) {
            files.add(bundle(name));
        }
        return files;
    }

    @SafeVarargs
    static List<Path> concat(List<Path>... parts) {
        List<Path> all = new ArrayList<>();
        for (List<Path> part : parts) {
            all.addAll(part);
        }
        return all;
    }

    /** A loopback port free now (the exporter binds it a moment later). */
    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /**
     * Packs the endpoint-description files of {@code directory} into a bundle under
     * {@code OSGI-INF/remote-service/}, where Aries' {@code discovery.local} reads them when the
     * bundle starts.
     */
    static Path endpointBundle(Path directory, String symbolicName) throws IOException {
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.putValue("Bundle-ManifestVersion", "2");
        main.putValue("Bundle-SymbolicName", symbolicName);
        main.putValue("Bundle-Version", "1.0.0");
        Path jar = directory.resolveSibling(symbolicName + ".jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest);
                Stream<Path> files = Files.list(directory)) {
            for (Path xml : (Iterable<Path>) files.sorted()::iterator) {
                out.putNextEntry(new JarEntry("OSGI-INF/remote-service/" + xml.getFileName()));
                out.write(Files.readAllBytes(xml));
                out.closeEntry();
            }
        }
        return jar;
    }

    /** Makes {@code importer} discover what {@code exporter} exports, through endpoint files. */
    static void discoverByFiles(Container exporter, Container importer, Path work) throws IOException {
        Path directory = work.resolve("endpoints-of-" + exporter.name() + "-for-" + importer.name());
        exporter.call("endpoints " + directory);
        importer.call("install " + endpointBundle(directory, "jofi.rsa.endpoints." + exporter.name()));
    }

    private static Path existing(String property) {
        String value = System.getProperty(property);
        if (value == null || value.startsWith("${")) {
            throw new IllegalStateException("system property " + property + " not set by the build (run through mvn verify)");
        }
        Path file = Path.of(value);
        if (!Files.exists(file)) {
            throw new IllegalStateException(property + " names " + file + ", which does not exist");
        }
        return file;
    }
}
