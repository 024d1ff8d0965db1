package io.jofi.provider.verbs.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.jofi.Fabrics;
import io.jofi.ProviderInfo;
import io.jofi.ProviderState;
import org.junit.jupiter.api.Assumptions;

/**
 * A running instance of provider-tcp's C interop peer ({@code provider-tcp/src/test/c/jofi_peer.c})
 * with {@code -f verbs}: libfabric 1.17's own verbs provider (Debian's {@code libfabric1}) used
 * as an application would, against JOFI's verbs MSG endpoints.
 *
 * <p>The guest of the soft-RoCE VM has no compiler: {@code provider-verbs/vm/run-tests} compiles
 * the peer on the host (the same Debian 12) and injects it as {@code jofi_peer} next to the test
 * classes, the guest's working directory ({@code -Djofi.verbs.peer=PATH} names another file).
 * {@link #assumeAvailable()} skips the calling test with a message when the binary is missing.
 * Every wait is bounded: the program has its own {@code alarm()} watchdog
 * ({@link #TIMEOUT} minus 5 s), and {@link #assertSucceeded()} kills it when the wait runs out.
 * The actions (one argument each) are documented at the top of jofi_peer.c.
 * {@code -Djofi.verbs.peer.fiLog=warn} (e.g. through {@code JOFI_VM_JAVA_OPTS}) runs the peer
 * with that {@code FI_LOG_LEVEL}: libfabric's own diagnostics land in the transcript.
 */
final class VerbsNativePeer implements AutoCloseable {

    /** The bound on one peer run; generous, because code runs 5–20× slower under TCG. */
    static final Duration TIMEOUT = Duration.ofSeconds(90);

    /** The guest's eth0 address, where rxe0 sits and rdma_cm routes (vm/README.md). */
    static final String HOST = System.getProperty("jofi.verbs.interop.host", "10.0.2.15");

    private static final Path EXECUTABLE = Path.of(System.getProperty("jofi.verbs.peer", "jofi_peer"));

    private final Process process;
    private final String description;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;
    private int port = -1;
    private boolean succeeded;

    private VerbsNativePeer(List<String> command) {
        description = String.join(" ", command);
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            // rxm (-e rdm) sizes its MSG CQ for FI_UNIVERSE_SIZE peers (default 256): more
            // entries than soft-RoCE's CQs take, so fi_enable fails with EINVAL ("Unable to
            // create verbs CQ"); the tests have one peer each
            builder.environment().put("FI_UNIVERSE_SIZE", "4");
            String fiLog = System.getProperty("jofi.verbs.peer.fiLog");
            if (fiLog != null) {
                builder.environment().put("FI_LOG_LEVEL", fiLog); // libfabric's own warnings in the transcript
            }
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + description, e);
        }
        reader = new Thread(this::readOutput, "jofi_peer-output");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Skips the calling test unless the host-compiled peer is present and executable (it is
     * compiled by vm/run-tests only where gcc and libfabric-dev exist).
     */
    static void assumeAvailable() {
        Assumptions.assumeTrue(Files.isExecutable(EXECUTABLE), () -> "the C interop peer "
                + EXECUTABLE.toAbsolutePath() + " is missing: provider-verbs/vm/run-tests compiles it on the host"
                + " (needs gcc and libfabric-dev there: apt-get install -y gcc libfabric-dev)");
    }

    /**
     * Skips the calling test (per test, not per class: a class-level assumption would show as 0
     * tests and hide the reason) unless it runs in the VM ({@code -Djofi.verbs.vm=true}), with
     * the verbs provider available and the host-compiled peer present.
     */
    static void assumeInTheVm() {
        Assumptions.assumeTrue(Boolean.getBoolean("jofi.verbs.vm"),
                "verbs interop runs in the soft-RoCE VM only: provider-verbs/vm/run-tests");
        ProviderInfo verbs = Fabrics.standalone().providers().stream()
                .filter(p -> p.name().equals("verbs")).findFirst().orElse(null);
        Assumptions.assumeTrue(verbs != null, "verbs unavailable: the provider is not registered");
        Assumptions.assumeTrue(verbs.state() == ProviderState.AVAILABLE, "verbs unavailable: " + verbs.reason());
        assumeAvailable();
    }

    /** Starts a scripted libfabric verbs server on {@link #HOST} with a free port and waits until it listens. */
    static VerbsNativePeer server(String... actions) {
        VerbsNativePeer peer = new VerbsNativePeer(command("server", List.of("-a", HOST, "-p", "0"), actions));
        peer.awaitListening();
        return peer;
    }

    /** Starts a scripted libfabric verbs client that connects to {@code port} on {@link #HOST}. */
    static VerbsNativePeer client(int port, String... actions) {
        return new VerbsNativePeer(command("client", List.of("-a", HOST, "-p", Integer.toString(port)), actions));
    }

    /**
     * Starts one of the peer's fabtests modes ({@code pingpong}, {@code bw}, {@code rma_bw};
     * jofi_peer.c's header) over libfabric's verbs provider as a server on {@link #HOST} with a
     * free port and fabtests' {@code options}, and waits until it listens (with {@code -e rdm}:
     * {@code verbs;ofi_rxm}, listening once its endpoint is enabled).
     */
    static VerbsNativePeer fabtestsServer(String mode, List<String> options) {
        List<String> command = fabtestsCommand(mode, options);
        command.addAll(List.of("-s", HOST, "-B", "0"));
        VerbsNativePeer peer = new VerbsNativePeer(command);
        peer.awaitListening();
        return peer;
    }

    /** Starts one of the peer's fabtests modes as a client of {@link #HOST}:{@code port}. */
    static VerbsNativePeer fabtestsClient(String mode, int port, List<String> options) {
        List<String> command = fabtestsCommand(mode, options);
        command.addAll(List.of("-P", Integer.toString(port), HOST));
        return new VerbsNativePeer(command);
    }

    private static List<String> fabtestsCommand(String mode, List<String> options) {
        List<String> command = new ArrayList<>();
        command.add(EXECUTABLE.toAbsolutePath().toString());
        command.add(mode);
        command.addAll(List.of("-p", "verbs", "-t", Long.toString(TIMEOUT.toSeconds() - 5)));
        command.addAll(options);
        return command;
    }

    private static List<String> command(String role, List<String> options, String... actions) {
        List<String> command = new ArrayList<>();
        command.add(EXECUTABLE.toAbsolutePath().toString());
        command.add(role);
        command.add("-f");
        command.add("verbs");
        command.add("-t");
        command.add(Long.toString(TIMEOUT.toSeconds() - 5));
        command.addAll(options);
        command.addAll(List.of(actions));
        return command;
    }

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

    private void awaitListening() {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        synchronized (lines) {
            int seen = 0;
            while (true) {
                for (; seen < lines.size(); seen++) {
                    String line = lines.get(seen);
                    if (line.startsWith("listening ")) {
                        port = Integer.parseInt(line.substring("listening ".length()).trim());
                        return;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || (!process.isAlive() && !reader.isAlive())) {
                    close();
                    fail("jofi_peer did not print \"listening <port>\" within " + TIMEOUT + "\n" + transcript());
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

    /** The port a server peer listens on. */
    int port() {
        if (port < 0) {
            throw new IllegalStateException("not a listening peer: " + description);
        }
        return port;
    }

    /**
     * Whether a client ended within a few seconds, failed, and said its connection was refused
     * or rejected (no listener yet on the port): the caller may start it again. A client still
     * running after that time is connected, or still trying: false.
     */
    boolean exitsRefused() throws InterruptedException {
        if (!process.waitFor(5, TimeUnit.SECONDS) || process.exitValue() == 0) {
            return false;
        }
        reader.join(TimeUnit.SECONDS.toMillis(5));
        String text = String.join("\n", output()).toLowerCase(java.util.Locale.ROOT);
        return text.contains("refused") || text.contains("reject") || text.contains("unreachable");
    }

    /** Every line printed so far. */
    List<String> output() {
        synchronized (lines) {
            return new ArrayList<>(lines);
        }
    }

    /** The command line and every line printed so far, for failure messages. */
    String transcript() {
        StringBuilder text = new StringBuilder("$ ").append(description).append('\n');
        synchronized (lines) {
            for (String line : lines) {
                text.append("  | ").append(line).append('\n');
            }
        }
        return text.toString();
    }

    /**
     * Waits (bounded by {@link #TIMEOUT}) for the program to end and asserts exit status 0: every
     * expectation of its script held (1: one failed, 2: bad usage, 3: its watchdog fired).
     */
    void assertSucceeded() {
        try {
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                close();
                fail("jofi_peer did not end within " + TIMEOUT + "\n" + transcript());
            }
            reader.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            fail("interrupted waiting for jofi_peer");
        }
        int status = process.exitValue();
        assertEquals(0, status, () -> "jofi_peer failed (exit " + status + ")\n" + transcript());
        succeeded = true;
    }

    /**
     * Kills the program if it still runs (cleanup after a failed test). When the test ended
     * before {@link #assertSucceeded()} passed (typically a JOFI-side failure caused by the peer
     * failing an expectation and disconnecting), the peer's transcript goes to stderr, so the
     * first failure is not hidden behind its consequence.
     */
    @Override
    public void close() {
        if (!succeeded) {
            System.err.println("[jofi_peer] the test ended before the peer's script was checked:\n" + transcript());
        }
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Byte {@code i} of the {@code size}-byte message the peer sends and checks:
     * {@code (i * 131 + (i >> 8) + size * 7 + 1) mod 256} (jofi_peer.c's pattern_byte).
     */
    static byte patternByte(int i, int size) {
        return (byte) (i * 131 + (i >>> 8) + size * 7 + 1);
    }

    /** A {@code size}-byte message in the peer's pattern. */
    static byte[] pattern(int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = patternByte(i, size);
        }
        return bytes;
    }

    /** The first index of {@code bytes[0, size)} that differs from the {@code size}-byte pattern, or -1. */
    static int firstPatternMismatch(byte[] bytes, int size) {
        for (int i = 0; i < size; i++) {
            if (bytes[i] != patternByte(i, size)) {
                return i;
            }
        }
        return -1;
    }
}
