package io.jofi.features;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A real ZooKeeper server ({@link ZooKeeperMain}) in a JVM of its own on a loopback address, its
 * output in {@code zookeeper.log} of its data folder; {@link #close()} ends it.
 */
final class ForkedZooKeeper implements AutoCloseable {
    private final Process process;
    private final String host;
    private final int port;

    private ForkedZooKeeper(Process process, String host, int port) {
        this.process = process;
        this.host = host;
        this.port = port;
    }

    String host() {
        return host;
    }

    int port() {
        return port;
    }

    /** Starts the server on {@code host:port} and waits (30 s at most) until it serves. */
    static ForkedZooKeeper start(String host, int port, Path directory) throws IOException {
        Files.createDirectories(directory);
        Process process = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dzookeeper.admin.enableServer=false",
                "-cp", Props.required("jofi.zookeeper.server.classpath"), ZooKeeperMain.class.getName(), host,
                Integer.toString(port), directory.toString()))
                .redirectErrorStream(true).start();
        ForkedZooKeeper server = new ForkedZooKeeper(process, host, port);
        Path log = directory.resolve("zookeeper.log");
        CompletableFuture<Boolean> started = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                 var file = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
                for (String line; (line = out.readLine()) != null; ) {
                    file.write(line);
                    file.newLine();
                    file.flush();
                    if (line.startsWith("@@started")) {
                        started.complete(true);
                    }
                }
            } catch (IOException e) {
                started.completeExceptionally(e);
            }
            started.complete(false);
        }, "zookeeper-output");
        reader.setDaemon(true);
        reader.start();
        boolean up;
        try {
            up = started.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            up = false;
        }
        if (!up) {
            server.close();
            throw new IllegalStateException("ZooKeeper did not start on " + host + ":" + port + "; see " + log);
        }
        return server;
    }

    @Override
    public void close() {
        try {
            process.getOutputStream().close(); // ZooKeeperMain stops at the end of its stdin
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
