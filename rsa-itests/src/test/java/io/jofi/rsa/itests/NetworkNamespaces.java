package io.jofi.rsa.itests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/**
 * Two network namespaces, {@code jofi-rsa-a} (198.18.0.1/30) and {@code jofi-rsa-b}
 * (198.18.0.2/30), joined by one veth pair: two "hosts" on one machine, addressed from the
 * benchmarking range. Leftovers of a killed earlier run are removed first; {@link #close()}
 * removes everything (the veth pair goes with its namespaces), and so does a shutdown hook should
 * the test JVM end without it.
 */
final class NetworkNamespaces implements AutoCloseable {
    static final String A = "jofi-rsa-a";
    static final String B = "jofi-rsa-b";
    static final String ADDRESS_A = "198.18.0.1";
    static final String ADDRESS_B = "198.18.0.2";
    private static final String VETH_A = "jofi-rsa-va";
    private static final String VETH_B = "jofi-rsa-vb";

    private final Thread cleanup = new Thread(NetworkNamespaces::removeAll, "jofi-rsa-netns-cleanup");

    private NetworkNamespaces() {
        Runtime.getRuntime().addShutdownHook(cleanup);
    }

    /**
     * Makes the two namespaces, or aborts the test (JUnit assumption, with the reason) where this
     * machine cannot: not root, no {@code ip}, no namespace support.
     */
    static NetworkNamespaces create() throws IOException, InterruptedException {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "network namespaces need root; running as " + System.getProperty("user.name"));
        Assumptions.assumeTrue(run(List.of("ip", "-V")).exitCode == 0, "no `ip` command (iproute2) on this machine");
        removeAll();
        NetworkNamespaces namespaces = new NetworkNamespaces();
        Result first = run(List.of("ip", "netns", "add", A));
        if (first.exitCode != 0) {
            namespaces.close();
            Assumptions.abort("cannot create a network namespace here: " + first.output);
        }
        try {
            namespaces.build();
        } catch (IOException | RuntimeException e) {
            namespaces.close();
            throw e;
        }
        return namespaces;
    }

    private void build() throws IOException, InterruptedException {
        check("ip", "netns", "add", B);
        check("ip", "link", "add", VETH_A, "type", "veth", "peer", "name", VETH_B);
        check("ip", "link", "set", VETH_A, "netns", A);
        check("ip", "link", "set", VETH_B, "netns", B);
        check("ip", "-n", A, "addr", "add", ADDRESS_A + "/30", "dev", VETH_A);
        check("ip", "-n", B, "addr", "add", ADDRESS_B + "/30", "dev", VETH_B);
        for (String[] link : new String[][] {{A, VETH_A}, {B, VETH_B}, {A, "lo"}, {B, "lo"}}) {
            check("ip", "-n", link[0], "link", "set", link[1], "up");
        }
    }

    @Override
    public void close() {
        removeAll();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    /** Removes both namespaces and a veth left in the root namespace, where they exist. */
    private static void removeAll() {
        try {
            String namespaces = run(List.of("ip", "netns", "list")).output;
            for (String name : List.of(A, B)) {
                if (namespaces.contains(name)) {
                    check("ip", "netns", "del", name);
                }
            }
            if (run(List.of("ip", "link", "show", VETH_A)).exitCode == 0) {
                check("ip", "link", "del", VETH_A);
            }
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException("cannot remove the test's network namespaces " + A + ", " + B, e);
        }
    }

    private static void check(String... command) throws IOException, InterruptedException {
        Result result = run(List.of(command));
        if (result.exitCode != 0) {
            throw new IOException(String.join(" ", command) + " exited " + result.exitCode + ": " + result.output);
        }
    }

    private static Result run(List<String> command) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException notFound) {
            return new Result(127, notFound.getMessage());
        }
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return new Result(124, String.join(" ", command) + " did not end within 20 s");
        }
        return new Result(process.exitValue(), new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim());
    }

    private static final class Result {
        final int exitCode;
        final String output;

        Result(int exitCode, String output) {
            this.exitCode = exitCode;
            this.output = output;
        }
    }
}
