package io.jofi.provider.tcp.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.junit.jupiter.api.Assumptions;

/**
 * A running instance of {@code src/test/c/jofi_peer.c}: a C program that uses libfabric's own
 * tcp provider ({@code fi_getinfo} with prov_name "tcp", {@code FI_EP_MSG}) as an application
 * would, so that JOFI's tcp provider is tested against the real wire format (docs/TCP-WIRE.md).
 *
 * <p>The program is compiled with gcc once per test JVM into {@code target/jofi_peer}
 * ({@link #executable()}). {@link #assumeNativeLibfabric()} skips the calling test — with a
 * message naming {@code apt-get install libfabric-dev} — when gcc, the libfabric header or the
 * library is missing; any other compile failure fails the test. Every wait is bounded: the
 * program has its own {@code alarm()} watchdog, and {@link #awaitExit(Duration)} kills the
 * process when the wait runs out.
 *
 * <p>The program's actions (one argument each) are documented at the top of jofi_peer.c; the
 * helpers {@link #server(String...)}, {@link #client(int, String...)},
 * {@link #pingpongServer(String...)} and {@link #pingpongClient(int, String...)} start it.
 */
public final class NativePeer implements AutoCloseable {

    /** The bound on any single peer run; the C watchdog is set a little below it. */
    public static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** The loopback address every test uses. */
    public static final String HOST = "127.0.0.1";


    private final Process process;
    private final String description;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;
    private int port = -1;

    private NativePeer(List<String> command) {
        this.description = String.join(" ", command);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + description, e);
        }
        reader = new Thread(this::readOutput, "jofi_peer-output");
        reader.setDaemon(true);
        reader.start();
    }

    // ------------------------------------------------------------------ compiling

    /**
     * Skips the calling test (a JUnit assumption, reported as skipped with its reason) when the
     * native side cannot be built here: no gcc, no {@code rdma/fabric.h}, or no
     * {@code libfabric.so}. The message says to {@code apt-get install libfabric-dev}. A compile
     * failure of any other kind fails the test instead, so a broken peer is never hidden
     * ({@link NativeProgram}).
     */
    public static void assumeNativeLibfabric() {
        NativeProgram.require("jofi_peer");
    }

    /**
     * The compiled peer program ({@code target/jofi_peer}), built at the first call in this JVM;
     * skips or fails the caller as {@link #assumeNativeLibfabric()} does.
     */
    public static Path executable() {
        return NativeProgram.require("jofi_peer");
    }

    // ------------------------------------------------------------------ starting

    /**
     * Starts a scripted server on {@link #HOST} with a free port and waits until it listens
     * ({@link #port()} is then known).
     */
    public static NativePeer server(String... actions) {
        List<String> command = command("server", "-a", HOST, "-p", "0");
        command.addAll(List.of(actions));
        NativePeer peer = new NativePeer(command);
        peer.awaitListening();
        return peer;
    }

    /** Starts a scripted client that connects to {@code port} on {@link #HOST}. */
    public static NativePeer client(int port, String... actions) {
        List<String> command = command("client", "-a", HOST, "-p", Integer.toString(port));
        command.addAll(List.of(actions));
        return new NativePeer(command);
    }

    /**
     * Starts the fabtests {@code fi_msg_pingpong} mode as a server on {@link #HOST} with a free
     * port ({@code -s 127.0.0.1 -B 0}) plus fabtests' own {@code options} ({@code -S -I -w}),
     * and waits until it listens.
     */
    public static NativePeer pingpongServer(String... options) {
        List<String> command = command("pingpong", "-s", HOST, "-B", "0");
        command.addAll(List.of(options));
        NativePeer peer = new NativePeer(command);
        peer.awaitListening();
        return peer;
    }

    /**
     * Starts the fabtests {@code fi_msg_pingpong} mode as a client of {@link #HOST}:{@code port}
     * ({@code -P port}) with fabtests' own {@code options} ({@code -S -I -w}).
     */
    public static NativePeer pingpongClient(int port, String... options) {
        List<String> command = command("pingpong", "-P", Integer.toString(port));
        command.addAll(List.of(options));
        command.add(HOST);
        return new NativePeer(command);
    }

    /**
     * Starts one of the fabtests modes ({@code pingpong}, {@code bw}, {@code rma_bw}) as a
     * server on {@link #HOST} with a free port and fabtests' {@code options}, and waits until
     * it listens (with {@code -e rdm}: until its RDM endpoint is enabled, which listens too).
     */
    public static NativePeer fabtestsServer(String mode, String... options) {
        List<String> command = command(mode, "-s", HOST, "-B", "0");
        command.addAll(List.of(options));
        NativePeer peer = new NativePeer(command);
        peer.awaitListening();
        return peer;
    }

    /** Starts one of the fabtests modes as a client of {@link #HOST}:{@code port}. */
    public static NativePeer fabtestsClient(String mode, int port, String... options) {
        List<String> command = command(mode, "-P", Integer.toString(port));
        command.addAll(List.of(options));
        command.add(HOST);
        return new NativePeer(command);
    }

    /**
     * Starts {@code src/test/c/ft_peer.c} playing fabtests' functional {@code program}
     * ({@code fi_msg}, {@code fi_rdm}, {@code fi_cq_data}) as a server on {@link #HOST} with a free
     * port, and waits until it listens.
     */
    public static NativePeer ftServer(String program, String... options) {
        List<String> command = ftCommand(program, "-s", HOST, "-B", "0");
        command.addAll(List.of(options));
        NativePeer peer = new NativePeer(command);
        peer.awaitListening();
        return peer;
    }

    /** Starts ft_peer playing {@code program} as a client of {@link #HOST}:{@code port}. */
    public static NativePeer ftClient(String program, int port, String... options) {
        List<String> command = ftCommand(program, "-P", Integer.toString(port));
        command.addAll(List.of(options));
        command.add(HOST);
        return new NativePeer(command);
    }

    /**
     * Starts {@code src/test/c/ft_peer_more.c} (the stand-in for fi_rdm_tagged_peek,
     * fi_recv_cancel, fi_msg_inject, fi_msg_sockets) as a server on {@link #HOST}, and waits
     * until it listens; {@code options} may give its port ({@code -B}), else it takes a free one.
     */
    public static NativePeer ftMoreServer(String program, String... options) {
        List<String> command = new ArrayList<>(List.of(NativeProgram.require("ft_peer_more").toString(), program,
                "-t", Long.toString(TIMEOUT.toSeconds() - 5), "-s", HOST));
        if (!List.of(options).contains("-B")) {
            command.addAll(List.of("-B", "0"));
        }
        command.addAll(List.of(options));
        NativePeer peer = new NativePeer(command);
        peer.awaitListening();
        return peer;
    }

    /** Starts ft_peer_more playing {@code program} as a client of {@link #HOST}:{@code port}. */
    public static NativePeer ftMoreClient(String program, int port, String... options) {
        List<String> command = new ArrayList<>(List.of(NativeProgram.require("ft_peer_more").toString(), program,
                "-t", Long.toString(TIMEOUT.toSeconds() - 5), "-P", Integer.toString(port)));
        command.addAll(List.of(options));
        command.add(HOST);
        return new NativePeer(command);
    }

    private static List<String> ftCommand(String program, String... options) {
        List<String> command = new ArrayList<>(List.of(NativeProgram.require("ft_peer").toString(), program,
                "-t", Long.toString(TIMEOUT.toSeconds() - 5)));
        command.addAll(List.of(options));
        return command;
    }

    /** Starts ft_peer_multi (fi_bw, fi_rdm -U, fi_rdm_multi_client) playing {@code program} as the server. */
    public static NativePeer ftMultiServer(String program, String... options) {
        List<String> command = ftMultiCommand(program, "-s", HOST, "-B", "0");
        command.addAll(List.of(options));
        NativePeer peer = new NativePeer(command);
        peer.awaitListening();
        return peer;
    }

    /** Starts ft_peer_multi playing {@code program} as a client of {@link #HOST}:{@code port}. */
    public static NativePeer ftMultiClient(String program, int port, String... options) {
        List<String> command = ftMultiCommand(program, "-P", Integer.toString(port));
        command.addAll(List.of(options));
        command.add(HOST);
        return new NativePeer(command);
    }

    private static List<String> ftMultiCommand(String program, String... options) {
        List<String> command = new ArrayList<>(List.of(NativeProgram.require("ft_peer_multi").toString(), program,
                "-t", Long.toString(TIMEOUT.toSeconds() - 5)));
        command.addAll(List.of(options));
        return command;
    }

    private static List<String> command(String role, String... options) {
        List<String> command = new ArrayList<>();
        command.add(executable().toString());
        command.add(role);
        command.add("-t");
        command.add(Long.toString(TIMEOUT.toSeconds() - 5));
        command.addAll(List.of(options));
        return command;
    }

    // ------------------------------------------------------------------ output

    private void readOutput() {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
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

    /**
     * Waits until a line matching {@code wanted} has been printed and returns it; fails when
     * the process ends or {@code timeout} passes first.
     */
    public String awaitLine(Predicate<String> wanted, Duration timeout) {
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
                    close();
                    fail("jofi_peer did not print the expected line within " + timeout + "\n" + transcript());
                }
                try {
                    lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 100)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    fail("interrupted waiting for jofi_peer");
                }
            }
        }
    }

    private void awaitListening() {
        String line = awaitLine(l -> l.startsWith("listening "), TIMEOUT);
        port = Integer.parseInt(line.substring("listening ".length()).trim());
    }

    /** The port a server peer listens on. */
    public int port() {
        if (port < 0) {
            throw new IllegalStateException("not a listening peer: " + description);
        }
        return port;
    }

    /** Every line printed so far (stdout and stderr merged, in order). */
    public List<String> output() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /** The command line and every line printed so far, for failure messages. */
    public String transcript() {
        StringBuilder text = new StringBuilder("$ ").append(description).append('\n');
        for (String line : output()) {
            text.append("  | ").append(line).append('\n');
        }
        return text.toString();
    }

    // ------------------------------------------------------------------ ending

    /**
     * Waits for the program to end and returns its exit status (0: every expectation held;
     * 1: one failed; 2: bad usage; 3: its watchdog fired). Kills it and fails when
     * {@code timeout} passes first. The output is complete when this returns.
     */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                close();
                fail("jofi_peer did not end within " + timeout + "\n" + transcript());
            }
            reader.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            fail("interrupted waiting for jofi_peer");
        }
        return process.exitValue();
    }

    /** Waits (bounded by {@link #TIMEOUT}) and asserts that every expectation of the script held. */
    public void assertSucceeded() {
        int status = awaitExit(TIMEOUT);
        assertEquals(0, status, () -> "jofi_peer failed (exit " + status + ")\n" + transcript());
    }

    /** Kills the program if it still runs (for cleanup after a failed test). */
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

    // ------------------------------------------------------------------ the byte pattern

    /**
     * Byte {@code i} of the pattern the peer sends and checks in a {@code size}-byte message:
     * {@code (i * 131 + (i >> 8) + size * 7 + 1) mod 256}. Every message size has its own
     * pattern, so a misplaced or mixed-up message shows.
     */
    public static byte patternByte(int i, int size) {
        return (byte) (i * 131 + (i >>> 8) + size * 7 + 1);
    }

    /** A {@code size}-byte message in the peer's pattern. */
    public static byte[] pattern(int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = patternByte(i, size);
        }
        return bytes;
    }

    /**
     * The index of the first byte of {@code bytes[offset, offset + size)} that differs from the
     * {@code size}-byte pattern, or -1 when all match.
     */
    public static int firstPatternMismatch(byte[] bytes, int offset, int size) {
        for (int i = 0; i < size; i++) {
            if (bytes[offset + i] != patternByte(i, size)) {
                return i;
            }
        }
        return -1;
    }
}
