package io.jofi.rsa.itests;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

import aQute.bnd.osgi.Builder;
import aQute.bnd.osgi.Jar;

/**
 * ZooKeeper as an OSGi bundle: the client and server jars of 3.8 (zookeeper and zookeeper-jute)
 * carry no OSGi manifest, so the harness wraps both into one bundle with bndlib, once per build.
 * It exports every ZooKeeper package at the release's version and imports SLF4J; the rest
 * (netty, metrics, snappy, jline: paths discovery never takes) optionally.
 */
final class ZooKeeperBundle {
    private ZooKeeperBundle() {
    }

    static synchronized Path file() throws Exception {
        String version = System.getProperty("jofi.rsa.zookeeper.version");
        Path bundle = Path.of(System.getProperty("jofi.rsa.work", "target/rsa-work"), "zookeeper-" + version + "-bundle.jar");
        if (Files.isRegularFile(bundle)) {
            return bundle;
        }
        Files.createDirectories(bundle.getParent());
        try (Builder builder = new Builder()) {
            builder.setProperty("Bundle-SymbolicName", "org.apache.zookeeper");
            builder.setProperty("Bundle-Version", version);
            builder.setProperty("Bundle-Name", "ZooKeeper " + version + " (zookeeper + zookeeper-jute, wrapped)");
            builder.setProperty("Export-Package", "org.apache.zookeeper.*;org.apache.jute.*;version=" + version);
            builder.setProperty("Import-Package", "org.slf4j;version=\"[1.7,3)\",*;resolution:=optional");
            builder.setProperty("-noextraheaders", "true");
            builder.addClasspath(jar("jofi.rsa.jar.zookeeper"));
            builder.addClasspath(jar("jofi.rsa.jar.zookeeper.jute"));
            Jar jar = builder.build();
            if (!builder.isOk()) {
                throw new IllegalStateException("wrapping ZooKeeper: " + builder.getErrors());
            }
            Path partial = bundle.resolveSibling(bundle.getFileName() + ".partial");
            jar.write(partial.toFile());
            Files.move(partial, bundle);
        }
        return bundle;
    }

    private static File jar(String property) {
        return Path.of(System.getProperty(property)).toFile();
    }
}
