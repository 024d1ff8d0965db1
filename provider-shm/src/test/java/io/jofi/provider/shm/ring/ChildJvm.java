package io.jofi.provider.shm.ring;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real child JVM running {@link RingChild} with the test classpath; its stdout lines are
 * queued so the test can wait for a line with a timeout (real processes, never threads pretending).
 */
final class ChildJvm implements AutoCloseable {

    static final long TIMEOUT_SECONDS = 60;

    final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private ChildJvm(Process process) {
        this.process = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("EOF " + e);
            }
            lines.add("EOF");
        }, "child-" + process.pid() + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    static ChildJvm start(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx64m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(RingChild.class.getName());
        command.addAll(List.of(args));
        return new ChildJvm(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
    }

    /** @return the first line starting with {@code prefix}; fails on EOF or timeout */
    String await(String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (true) {
            long left = deadline - System.nanoTime();
            String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
            if (line == null) {
                throw new AssertionError("child " + process.pid() + " printed no '" + prefix + "' within "
                        + TIMEOUT_SECONDS + " s");
            }
            if (line.startsWith(prefix)) {
                return line;
            }
            if (line.startsWith("EOF")) {
                throw new AssertionError("child " + process.pid() + " ended before printing '" + prefix + "'");
            }
        }
    }

    /** Waits (bounded) for the exit and returns the exit code. */
    int awaitExit() throws InterruptedException {
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("child " + process.pid() + " did not exit within " + TIMEOUT_SECONDS + " s");
        }
        return process.exitValue();
    }

    /** kill -9 and wait until it is gone (reaped). */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
