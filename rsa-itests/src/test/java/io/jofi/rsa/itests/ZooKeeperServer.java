package io.jofi.rsa.itests;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A real ZooKeeper server (the release the containers' client bundle wraps) in its own JVM,
 * optionally inside a network namespace, for Aries' ZooKeeper discovery.
 */
final class ZooKeeperServer implements AutoCloseable {
    private final Process process;
    private final String host;
    private final int port;

    private ZooKeeperServer(Process process, String host, int port) {
        this.process = process;
        this.host = host;
        this.port = port;
    }

    static ZooKeeperServer start(String host, int port, Path directory, String namespace) throws IOException, InterruptedException {
        Files.createDirectories(directory);
        List<String> command = new ArrayList<>();
        if (namespace != null) {
            command.addAll(List.of("ip", "netns", "exec", namespace));
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-Xmx128m", "-XX:+UseSerialGC", "-Dzookeeper.admin.enableServer=false", "-cp",
                Harness.zookeeperServerClasspath(),
                "io.jofi.rsa.itests.launcher.ZooKeeperMain", host, Integer.toString(port), directory.toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.PIPE).start();
        ZooKeeperServer server = new ZooKeeperServer(process, host, port);
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Path log = directory.resolve("zookeeper.log");
        CompletableFuture<Boolean> started = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (var file = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
                String line;
                while ((line = out.readLine()) != null) {
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
            throw new AssertionError("ZooKeeper did not start on " + host + ":" + port + "; see " + log);
        }
        return server;
    }

    String host() {
        return host;
    }

    int port() {
        return port;
    }

    /** Adds this server's client configuration (Aries' ZooKeeper discovery PID) to a container; no SASL. */
    Container.Builder configure(Container.Builder container) {
        return container.jvmArgument("-Dzookeeper.sasl.client=false")
                .config("org.apache.aries.rsa.discovery.zookeeper", "zookeeper.host", host)
                .config("org.apache.aries.rsa.discovery.zookeeper", "zookeeper.port", Integer.toString(port));
    }

    @Override
    public void close() throws InterruptedException {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // gone already; destroyForcibly below makes sure
        }
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
