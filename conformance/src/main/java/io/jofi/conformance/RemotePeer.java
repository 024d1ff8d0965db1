package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.Progress;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The parent's end of side b in another process: a child JVM running {@link RemotePeerMain}
 * with this JVM's class path, driven line by line. Every answer is awaited at most
 * {@code timeoutMs}; a child that does not answer fails the test. {@link #close()} asks it
 * to quit and kills it if it does not.
 */
public final class RemotePeer implements AutoCloseable {
    private final Process process;
    private final PrintStream in;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final long timeoutMs;
    private final byte[] name;

    /**
     * Starts the child.
     *
     * @param provider  the provider name the child asks {@code getInfo} for
     * @param progress  the child's data progress ({@code AUTO} or {@code MANUAL})
     * @param caps      the caps of the child's endpoint
     * @param jvmArgs   extra JVM arguments (e.g. {@code -Djofi.shm.directory=...})
     * @param timeoutMs the bound of every answer
     */
    /** What {@link #next} runs while it waits, or null. */
    private volatile Runnable idle;

    public RemotePeer(String provider, Progress progress, long caps, List<String> jvmArgs, long timeoutMs) throws IOException {
        this.timeoutMs = timeoutMs;
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx128m");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(RemotePeerMain.class.getName());
        cmd.add(provider);
        cmd.add(progress.name());
        cmd.add(Long.toHexString(caps));
        process = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        in = new PrintStream(process.getOutputStream(), true, StandardCharsets.US_ASCII);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
                String l;
                while ((l = r.readLine()) != null) {
                    lines.add(l);
                }
            } catch (IOException e) {
                // the child is gone: EOF below says so
            }
            lines.add("EOF");
        }, "remote-peer-reader");
        reader.setDaemon(true);
        reader.start();
        String first = next();
        if (!first.startsWith("NAME ")) {
            close();
            fail("the remote peer did not start: " + first);
        }
        name = HexFormat.of().parseHex(first.substring(5));
    }

    /** The child endpoint's {@code getName()}. */
    public byte[] name() {
        return name.clone();
    }

    /** Sends a command without waiting for its answer. */
    public void send(String command) {
        in.println(command);
    }

    /** Sends a command and returns its first answer line. */
    public String ask(String command) {
        send(command);
        return next();
    }

    /** Sends a command whose answer must be {@code OK}. */
    public void ok(String command) {
        assertEquals("OK", ask(command), "the remote peer's answer to '" + command + "'");
    }

    /** Tells the child which address its sends go to (inserted into its AV). */
    public void peer(byte[] address) {
        ok("peer " + HexFormat.of().formatHex(address));
    }

    /**
     * {@code cq tx|rx n}: the child reads n completions (driving its progress); their lines,
     * {@code C ctx len flags data tag} or {@code E ctx errname len olen}.
     */
    public List<String[]> completions(String which, int n) {
        send("cq " + which + " " + n);
        List<String[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String l = next();
            if (!l.startsWith("C ") && !l.startsWith("E ")) {
                fail("the remote peer's " + which + " completion " + i + " of " + n + ": " + l);
            }
            out.add(l.split(" "));
        }
        assertEquals("END", next(), "end of the remote peer's completions");
        return out;
    }

    /** A long the child answers as {@code VALUE v}. */
    public long value(String command) {
        String l = ask(command);
        if (!l.startsWith("VALUE ")) {
            fail("the remote peer's answer to '" + command + "': " + l);
        }
        return Long.parseLong(l.substring(6));
    }

    /**
     * Runs {@code idle} (e.g. reading the parent's CQs with count 0) while {@link #next} waits for
     * the child: with {@code Progress.MANUAL} on the parent, an exchange that needs both sides'
     * progress (a rendezvous read from the parent's memory) moves only that way.
     */
    public void whileWaiting(Runnable idle) {
        this.idle = idle;
    }

    /** The next line from the child, bounded (running {@link #whileWaiting}'s action meanwhile). */
    public String next() {
        try {
            String l;
            if (idle == null) {
                l = lines.poll(timeoutMs, TimeUnit.MILLISECONDS);
            } else {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
                while ((l = lines.poll()) == null && System.nanoTime() < deadline) {
                    idle.run();
                    l = lines.poll(50, TimeUnit.MICROSECONDS);
                    if (l != null) {
                        break;
                    }
                }
            }
            if (l == null) {
                fail("no answer from the remote peer within " + timeoutMs + " ms");
            }
            return l;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Asks the child to quit (bounded), kills it otherwise. */
    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                send("quit");
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
