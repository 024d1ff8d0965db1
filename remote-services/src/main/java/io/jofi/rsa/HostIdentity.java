package io.jofi.rsa;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Who "this host" is, so an importer can tell an exporter on the same host (where shared
 * memory works) from one elsewhere: the kernel's boot id (differs between machines and between
 * boots; containers on one kernel share it, as they can share memory files) and the host name.
 */
final class HostIdentity {
    private HostIdentity() {
    }

    static String current() {
        String boot;
        try {
            boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id"), StandardCharsets.US_ASCII).trim();
        } catch (IOException | RuntimeException e) {
            boot = "no-boot-id";
        }
        String name;
        try {
            name = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            name = System.getenv().getOrDefault("HOSTNAME", "unknown-host");
        }
        return boot + "@" + name;
    }
}
