package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real child JVM running {@link ShmPeerMain} (same class path, same region directory), with
 * bounded line exchanges: every answer is awaited at most {@link #TIMEOUT_S} seconds.
 */
final class ChildPeer implements AutoCloseable {
    static final int TIMEOUT_S = 30;

    private final Process process;
    private final PrintStream in;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final String name;

    ChildPeer(Path dir, String progress) throws IOException {
        this(dir, progress, null);
    }

    /** A child whose endpoint takes the chosen name {@code chosen} (null: the provider's name). */
    ChildPeer(Path dir, String progress, String chosen) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx128m");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Djofi.shm.directory=" + dir);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ShmPeerMain.class.getName());
        cmd.add(progress);
        if (chosen != null) {
            cmd.add(chosen);
        }
        process = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        in = new PrintStream(process.getOutputStream(), true, StandardCharsets.US_ASCII);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
                String l;
                while ((l = r.readLine()) != null) {
                    lines.add(l);
                }
            } catch (IOException e) {
                // the child is gone
            }
            lines.add("EOF");
        }, "child-reader");
        reader.setDaemon(true);
        reader.start();
        String first = next();
        if (!first.startsWith("NAME ")) {
            fail("child did not start: " + first);
        }
        name = first.substring(5);
    }

    /** The child's endpoint address text ({@code fi_shm://...}). */
    String name() {
        return name;
    }

    /** Its address bytes with the NUL. */
    byte[] address() {
        byte[] t = name.getBytes(StandardCharsets.US_ASCII);
        return java.util.Arrays.copyOf(t, t.length + 1);
    }

    long pid() {
        return process.pid();
    }

    /** Sends a command without waiting. */
    void send(String command) {
        in.println(command);
    }

    /** Sends a command and returns its answer. */
    String ask(String command) {
        send(command);
        return next();
    }

    /** Sends a command whose answer must be {@code expected}. */
    void expect(String command, String expected) {
        assertEquals(expected, ask(command), "child's answer to '" + command + "'");
    }

    String next() {
        try {
            String l = lines.poll(TIMEOUT_S, TimeUnit.SECONDS);
            if (l == null) {
                fail("no answer from the child within " + TIMEOUT_S + " s");
            }
            return l;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** kill -9 and wait (bounded) for the process to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
            fail("the child did not die within " + TIMEOUT_S + " s");
        }
    }

    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                send("quit");
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(TIMEOUT_S, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
