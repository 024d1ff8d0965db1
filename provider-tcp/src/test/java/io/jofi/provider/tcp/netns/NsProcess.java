package io.jofi.provider.tcp.netns;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child process inside a namespace with its output (stdout and stderr merged) read into lines,
 * each stamped with the time it arrived: waits for a line, for the exit, all bounded; killed by
 * {@link #close()} (and the JVM's shutdown hook, {@link Netns#started}).
 */
final class NsProcess implements AutoCloseable {
    private final Process process;
    private final String description;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;

    private NsProcess(List<String> command, List<String> environment) {
        this.description = String.join(" ", command);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        for (String kv : environment) {
            int eq = kv.indexOf('=');
            builder.environment().put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new AssertionError("cannot start " + description + ": " + e, e);
        }
        Netns.started(process);
        reader = new Thread(this::read, "netns-output");
        reader.setDaemon(true);
        reader.start();
    }

    static NsProcess start(List<String> command, List<String> environment) {
        return new NsProcess(command, environment);
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            synchronized (lines) {
                lines.add("(output read failed: " + e + ")");
                lines.notifyAll();
            }
        }
    }

    /** The first line matching {@code wanted}; fails when the process ends or {@code timeout} passes first. */
    String awaitLine(Predicate<String> wanted, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            int seen = 0;
            while (true) {
                for (; seen < lines.size(); seen++) {
                    if (wanted.test(lines.get(seen))) {
                        return lines.get(seen);
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || (!process.isAlive() && !reader.isAlive())) {
                    String why = left <= 0 ? "within " + timeout : "before it ended";
                    close();
                    throw new AssertionError("the expected line did not come " + why + "\n" + transcript());
                }
                try {
                    lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 100)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted", e);
                }
            }
        }
    }

    /** Waits for the exit (killing it and failing after {@code timeout}) and returns the status; the output is complete then. */
    int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                close();
                throw new AssertionError("did not end within " + timeout + "\n" + transcript());
            }
            reader.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        return process.exitValue();
    }

    /** Waits for the exit and asserts status 0. */
    void assertSucceeded(Duration timeout) {
        int status = awaitExit(timeout);
        if (status != 0) {
            throw new AssertionError("exit status " + status + "\n" + transcript());
        }
    }

    List<String> output() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    String transcript() {
        StringBuilder text = new StringBuilder("$ ").append(description).append('\n');
        for (String line : output()) {
            text.append("  | ").append(line).append('\n');
        }
        return text.toString();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
