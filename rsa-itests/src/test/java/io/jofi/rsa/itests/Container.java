package io.jofi.rsa.itests;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One forked JVM running one OSGi framework with the test's agent bundle: started from a list
 * of bundle files, driven by one command line at a time (the agent's protocol, see
 * rsa-itests/README.md), logged to a file, stopped or killed with SIGKILL.
 *
 * <p>Commands to one container run one after another on its own thread, so a test can leave a
 * long command running ({@link #callAsync}) while it acts on another container.
 */
final class Container implements AutoCloseable {
    private static final long START_MILLIS = 60_000;

    private final String name;
    private final Process process;
    private final Path log;
    private final Writer commands;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final Deque<String> tail = new ArrayDeque<>();
    /** Lines that are not answers nor framework logs (a bundle's own System.out), for {@link #awaitOutput}. */
    private final List<String> printed = new ArrayList<>();
    private final ExecutorService caller;

    private Container(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.commands = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        this.caller = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "container-" + name);
            thread.setDaemon(true);
            return thread;
        });
        Thread reader = new Thread(this::readOutput, "container-" + name + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Builds a container; {@link Builder#start()} forks it and waits until every bundle started. */
    static Builder builder(String name, Path directory) {
        return new Builder(name, directory);
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    /** Runs one command and answers the text of its {@code @@ok} line; an {@code @@err} line fails the test. */
    String call(String command) {
        return call(command, 120_000);
    }

    String call(String command, long millis) {
        try {
            return callAsync(command, millis).get(millis + 5_000, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            if (cause instanceof AssertionError) {
                throw (AssertionError) cause;
            }
            throw new AssertionError(name + ": " + command + " -> " + cause + "\n" + tail(), cause);
        }
    }

    /** Starts one command on this container's thread; the future completes with its answer. */
    CompletableFuture<String> callAsync(String command, long millis) {
        return CompletableFuture.supplyAsync(() -> exchange(command, millis), caller);
    }

    private String exchange(String command, long millis) {
        try {
            commands.write(command + "\n");
            commands.flush();
            String answer = answers.poll(millis, TimeUnit.MILLISECONDS);
            if (answer == null) {
                throw new AssertionError(name + ": no answer to '" + command + "' within " + millis + " ms\n" + tail());
            }
            if (answer.startsWith("@@ok")) {
                return answer.substring(4).trim();
            }
            throw new AssertionError(name + ": " + command + " -> " + answer + "\n" + tail());
        } catch (IOException e) {
            throw new AssertionError(name + ": cannot send '" + command + "' (exited " + exitText() + ")\n" + tail(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(name + ": interrupted", e);
        }
    }

    /** Waits until the container printed a line containing {@code text}; answers that line. */
    String awaitOutput(String text, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (System.nanoTime() < deadline) {
            synchronized (this) {
                for (String line : printed) {
                    if (line.contains(text)) {
                        return line;
                    }
                }
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new AssertionError(name + " printed no line with '" + text + "' within " + millis + " ms\n" + tail());
    }

    /** SIGKILL, as a crash: no bundle stops, no socket closes in order. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    boolean alive() {
        return process.isAlive();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            try {
                commands.write("exit\n");
                commands.flush();
            } catch (IOException e) {
                // the container is already gone; destroyForcibly below makes sure
            }
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        caller.shutdownNow();
    }

    /** The last lines the container printed, for failure messages. */
    synchronized String tail() {
        return "--- last lines of " + log + " ---\n" + String.join("\n", tail);
    }

    private String exitText() {
        return process.isAlive() ? "not yet" : Integer.toString(process.exitValue());
    }

    private void readOutput() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                PrintWriter file = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true)) {
            String line;
            while ((line = in.readLine()) != null) {
                file.println(line);
                synchronized (this) {
                    tail.addLast(line);
                    if (tail.size() > 40) {
                        tail.removeFirst();
                    }
                    if (!line.startsWith("@@") && !line.startsWith("[") && printed.size() < 1000) {
                        printed.add(line);
                    }
                }
                if (line.startsWith("@@ok") || line.startsWith("@@err") || line.startsWith("@@started")) {
                    answers.add(line);
                }
            }
        } catch (IOException e) {
            answers.add("@@err reading the container's output: " + e);
        }
        answers.add("@@err container exited");
    }

    /** What a container is made of: framework, bundles, properties, configurations, namespace. */
    static final class Builder {
        private final String name;
        private final Path directory;
        private String framework = "felix";
        private final List<Path> bundles = new ArrayList<>();
        private final Properties launch = new Properties();
        private final Properties configs = new Properties();
        private final List<String> jvmArguments = new ArrayList<>();
        private String namespace;
        private boolean quickStart = true;

        private Builder(String name, Path directory) {
            this.name = name;
            this.directory = directory.resolve(name);
        }

        Builder framework(String framework) {
            this.framework = framework;
            return this;
        }

        Builder bundles(List<Path> files) {
            bundles.addAll(files);
            return this;
        }

        Builder property(String key, String value) {
            launch.setProperty("framework." + key, value);
            return this;
        }

        /** A configuration the agent applies before the bundles after it start. */
        Builder config(String pid, String key, String value) {
            configs.setProperty(pid + "/" + key, value);
            return this;
        }

        Builder jvmArgument(String argument) {
            jvmArguments.add(argument);
            return this;
        }

        /**
         * The JIT's full optimizing tier (C2) for measurements; containers of tests run with C1
         * only, which starts them (JAXB above all) several times faster.
         */
        Builder fullCompiler() {
            quickStart = false;
            return this;
        }

        /** Runs the JVM inside network namespace {@code name} ({@code ip netns exec}). */
        Builder namespace(String name) {
            this.namespace = name;
            return this;
        }

        Container start() throws IOException, InterruptedException {
            Files.createDirectories(directory);
            Path configFile = directory.resolve("configs.properties");
            write(configs, configFile);
            launch.setProperty("framework.org.osgi.framework.storage", directory.resolve("cache").toString());
            launch.setProperty("framework.org.osgi.framework.storage.clean", "onFirstInit");
            launch.setProperty("framework.jofi.rsa.agent.configs", configFile.toString());
            for (int i = 0; i < bundles.size(); i++) {
                launch.setProperty("bundle." + i, bundles.get(i).toString());
            }
            Path launchFile = directory.resolve("launch.properties");
            write(launch, launchFile);
            List<String> command = new ArrayList<>();
            if (namespace != null) {
                command.addAll(List.of("ip", "netns", "exec", namespace));
            }
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx384m");
            command.add("-XX:+UseSerialGC");
            if (quickStart) {
                command.add("-XX:TieredStopAtLevel=1");
            }
            command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
            command.addAll(jvmArguments);
            command.add("-cp");
            command.add(Harness.frameworkJar(framework) + java.io.File.pathSeparator + Harness.launcherClasspath());
            command.add("io.jofi.rsa.itests.launcher.ContainerMain");
            command.add(launchFile.toString());
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            Container container = new Container(name, process, directory.resolve("container.log"));
            String started = container.answers.poll(START_MILLIS, TimeUnit.MILLISECONDS);
            if (started == null || !started.startsWith("@@started")) {
                container.close();
                throw new AssertionError(name + " did not start: " + started + "\n" + container.tail());
            }
            return container;
        }

        private static void write(Properties properties, Path file) throws IOException {
            try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                properties.store(out, null);
            }
        }
    }
}
