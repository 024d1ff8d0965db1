package io.jofi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The {@code jofi} launcher script end to end, in a plain JVM: each test runs the real
 * {@code ./jofi} of this repository as a process (its own JVM with the exported container
 * {@code cnf/target/jofi.jar}, which the reactor built before the itests) and checks the exit
 * status and what it printed: the non-interactive commands (status 0, 1 with one line on
 * stderr, 2 for a usage error) and the Gogo shell reading commands from its standard input.
 *
 * <p>The script runs with {@code JOFI_NO_BUILD=1}: it must use the jar just built, not start a
 * Maven build of its own because a source is newer than the (reproducible, 1980-dated) jar.
 *
 * <p>The container ships the tcp, shm and verbs providers (the provider bundles of
 * {@code cnf/jofi.bndrun}); verbs lists itself first (getInfo's default order) and is
 * unavailable on machines without an RDMA device, so the expectations name tcp and shm and
 * accept either state of verbs.
 */
public class LauncherIT {
    /** What {@code info -l} prints of the tcp provider. */
    private static final String TCP_LISTING = "tcp:\n    version: 0.1\n    state: available\n";
    /** What {@code info -l} prints of the ofi_rxm provider (layered over tcp and verbs; listed after the cores). */
    private static final String RXM_LISTING = "ofi_rxm:\n    version: 0.1\n    state: available\n";
    /** What {@code info -l} prints of the shm provider. */
    private static final String SHM_LISTING = "shm:\n    version: 0.1\n    state: available\n";
    /** What {@code info -l} prints of the verbs provider: its row, available or unavailable with the reason. */
    private static final java.util.regex.Pattern VERBS_LISTING = java.util.regex.Pattern.compile(
            "verbs:\n    version: 0\\.1\n    state: (available|unavailable \\(.+\\))\n");
    /** Bound on one run of the script (a container start is about two seconds). */
    private static final long TIMEOUT_SECONDS = 60;
    /**
     * The container JVMs' options here: each command is a short-lived JVM, whose start is mostly
     * class loading and compiling; C1 alone and the serial collector take a third less CPU
     * (./jofi info -l: 1.5 s instead of 2.6 s of user time) and change nothing the tests read.
     */
    private static final String START_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

    private static Path home;

    @BeforeClass
    public static void findTheScriptAndTheContainer() {
        String property = System.getProperty("jofi.home");
        if (property == null || property.isEmpty() || property.startsWith("${")) {
            throw new IllegalStateException("system property jofi.home is not set: run the itests through Maven"
                    + " (mvn verify -pl itests -am)");
        }
        home = Path.of(property).toAbsolutePath().normalize();
        assertTrue("no executable jofi script in " + home, Files.isExecutable(home.resolve("jofi")));
        assertTrue("cnf/target/jofi.jar is not built: build the reactor first (mvn verify -pl itests -am)",
                Files.isRegularFile(home.resolve("cnf/target/jofi.jar")));
    }

    @Test
    public void infoListListsTheProvidersAndSucceeds() throws Exception {
        Run run = jofi(null, "info", "-l");

        assertEquals(run.toString(), 0, run.status);
        java.util.regex.Matcher verbs = VERBS_LISTING.matcher(run.out);
        assertTrue(run.toString(), verbs.lookingAt());
        assertEquals(run.toString(), SHM_LISTING + TCP_LISTING + RXM_LISTING, run.out.substring(verbs.end()));
        assertEquals(run.toString(), "", run.err);
    }

    /**
     * At a terminal the container's start is announced (after JOFI_START_NOTICE_SECONDS, 2 by
     * default; 0 here so that a fast machine shows it too): no silent wait. util-linux's
     * {@code script} gives the script a terminal. Without one (every other test) stderr stays empty.
     */
    @Test
    public void atATerminalTheContainersStartIsAnnounced() throws Exception {
        org.junit.Assume.assumeTrue("util-linux's script is not installed", Files.isExecutable(Path.of("/usr/bin/script")));
        ProcessBuilder builder = new ProcessBuilder("/usr/bin/script", "-qec", "./jofi info -l", "/dev/null")
                .directory(home.toFile())
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.put("JOFI_NO_BUILD", "1");
        env.put("JOFI_START_NOTICE_SECONDS", "0");
        env.put("JAVA", new File(System.getProperty("java.home"), "bin/java").getPath());
        env.put("JOFI_JAVA_OPTS", START_OPTS);
        Process process = builder.start();
        process.getOutputStream().close();
        byte[] all = process.getInputStream().readAllBytes();
        assertTrue("script did not end", process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        String text = new String(all, StandardCharsets.UTF_8);
        assertEquals(text, 0, process.exitValue());
        assertTrue(text, text.contains("jofi: starting the OSGi container (the JVM, Felix and the bundles), then 'info'..."));
        assertTrue(text, text.contains("tcp:"));
    }

    @Test
    public void infoOfTcpMsgPrintsItsInterfaces() throws Exception {
        Run run = jofi(null, "info", "-p", "tcp", "-t", "msg");

        assertEquals(run.toString(), 0, run.status);
        assertTrue(run.toString(), run.out.contains("provider: tcp"));
        assertTrue(run.toString(), run.out.contains("127.0.0.0/8"));
        assertEquals(run.toString(), "", run.err);
    }

    @Test
    public void infoEnvListsEverySettingWithDefaultValueAndTheMetatypesDescription() throws Exception {
        Run run = jofi(null, "info", "-e");

        assertEquals(run.toString(), 0, run.status);
        assertEquals(run.toString(), "", run.err);
        java.util.List<String> lines = run.out.lines().toList();
        for (String prefix : java.util.List.of("# jofi.tcp.portLow: Integer (default: 0; current: 0): ",
                "# jofi.tcp.iface: String (default: \"\"; current: \"\"): ",
                "# jofi.shm.cmaThreshold: Integer (default: 32768; current: ",
                "# jofi.verbs.iwarpWriteConfirm: Boolean (default: true; current: true): ")) {
            assertTrue("no line starting '" + prefix + "' in\n" + run.out, lines.stream().anyMatch(l -> l.startsWith(prefix)));
        }
        // every setting has a description (read from the bundle's metatype); the last line says how to set one
        java.util.List<String> settings = lines.subList(0, lines.size() - 1);
        assertTrue(run.out, settings.stream().allMatch(l -> l.startsWith("# jofi.") && l.matches(".*\\): \\S.*")));
        assertTrue(run.out, lines.get(lines.size() - 1).matches("# to set one: -Djofi\\.\\w+\\.\\w+=\\S* in the JVM "
                + "\\(\\./jofi: JOFI_JAVA_OPTS='-Djofi\\.\\w+\\.\\w+=\\S*' \\./jofi \\.\\.\\.\\), or in OSGi Configuration Admin's PID "
                + "io\\.jofi\\.provider\\.\\w+, property \\w+"));
    }

    @Test
    public void infoOfAHintNoProviderMeetsFailsWithOneLineNamingTheHint() throws Exception {
        Run run = jofi(null, "info", "-t", "dgram");

        assertEquals(run.toString(), 1, run.status);
        assertEquals(run.toString(), "", run.out);
        assertEquals(run.toString(), 1, run.err.lines().count());
        assertTrue(run.toString(), run.err.startsWith("jofi info: no fabric provider matches: verbs: "));
        assertTrue(run.toString(), run.err.contains("; shm: ep_type FI_EP_DGRAM"));
        assertTrue(run.toString(), run.err.contains("; tcp: ep_type FI_EP_DGRAM"));
    }

    @Test
    public void providersStopPrintsGetInfoBeforeAndAfter() throws Exception {
        Run run = jofi(null, "providers", "stop", "tcp");

        assertEquals(run.toString(), 0, run.status);
        String out = run.out;
        int stop = out.indexOf("stop: io.jofi.provider.tcp");
        assertTrue(run.toString(), out.startsWith("before:\n"));
        assertTrue(run.toString(), stop > out.indexOf("    tcp FI_EP_MSG\n"));
        assertTrue(run.toString(), stop > out.indexOf("    shm FI_EP_RDM\n"));
        String after = out.substring(out.indexOf("after:\n", stop));
        assertTrue(run.toString(), after.contains("    shm FI_EP_RDM\n"));
        assertFalse(run.toString(), after.contains("tcp"));
    }

    @Test
    public void stopOfAnUnknownProviderFailsWithOneLineOnStderr() throws Exception {
        Run run = jofi(null, "providers", "stop", "nosuch");

        assertEquals(run.toString(), 1, run.status);
        assertEquals(run.toString(), "", run.out);
        assertEquals(run.toString(), 1, run.err.lines().count());
        assertTrue(run.toString(), run.err.startsWith("jofi providers: no provider 'nosuch': "));
    }

    @Test
    public void versionPrintsOneSpellingOfTheVersionAsFiInfoDoes() throws Exception {
        for (String flag : new String[] {"--version", "-V"}) {
            Run run = jofi(null, flag);

            assertEquals(run.toString(), 0, run.status);
            assertEquals(run.toString(), "", run.err);
            assertTrue(run.toString(), run.out.matches("jofi: \\d+\\.\\d+\\.\\d+(-[A-Za-z0-9]+)?\nlibfabric api: 1\\.17\n"));
        }
    }

    @Test
    public void unknownCommandIsAUsageError() throws Exception {
        Run run = jofi(null, "bogus");

        assertEquals(run.toString(), 2, run.status);
        assertEquals(run.toString(), "", run.out);
        assertTrue(run.toString(), run.err.startsWith("jofi: unknown command 'bogus'\n"));
    }

    @Test
    public void shellSwapsTheProviderLiveAndEndsWithItsInput() throws Exception {
        // plain 'info' is jofi's in ./jofi shell (SCR's scr:info answered it before, with an error)
        Run run = jofi("info -l\njofi:providers stop tcp\njofi:info -l\njofi:providers stop tcp\n"
                + "jofi:providers start tcp\njofi:providers start tcp\njofi:info -l\n", "shell");

        assertEquals(run.toString(), 0, run.status);
        String out = run.out;
        int stopped = out.indexOf("stop: io.jofi.provider.tcp");
        int started = out.indexOf("start: io.jofi.provider.tcp");
        assertTrue(run.toString(), out.indexOf(TCP_LISTING) < stopped);
        assertTrue(run.toString(), stopped > 0 && started > stopped);
        // between stop and start, info -l lists verbs and shm as they are and tcp as stopped
        String between = out.substring(stopped, started);
        assertTrue(run.toString(), between.contains("verbs:\n"));
        assertTrue(run.toString(), between.contains(SHM_LISTING));
        assertFalse(run.toString(), between.contains(TCP_LISTING));
        assertTrue(run.toString(), between.contains("tcp:\n    state: stopped (bundle io.jofi.provider.tcp is RESOLVED;"
                + " 'jofi providers start tcp' starts it)\n"));
        // a second stop and a second start change nothing and say so
        assertTrue(run.toString(), between.contains("tcp is already stopped (bundle io.jofi.provider.tcp is RESOLVED): nothing to do"));
        assertTrue(run.toString(), out.indexOf("tcp is already started (bundle io.jofi.provider.tcp is ACTIVE): nothing to do", started) > 0);
        assertTrue(run.toString(), out.indexOf(TCP_LISTING, started) > started);
    }

    /** One finished run of the script. */
    private record Run(List<String> command, int status, String out, String err) {
        @Override
        public String toString() {
            return String.join(" ", command) + " exited " + status + "\n--- stdout:\n" + out + "--- stderr:\n" + err;
        }
    }

    /**
     * Runs {@code ./jofi args...} in the repository root with {@code input} (or nothing) on its
     * standard input, waiting at most {@value #TIMEOUT_SECONDS} s; on timeout the script and the
     * container JVM it started are killed and the test fails.
     */
    private static Run jofi(String input, String... args) throws IOException, InterruptedException {
        return jofiWith(null, input, args);
    }

    /**
     * A Flight Recorder recording of the container from its start holds JOFI's events: the
     * arrival of every provider (io.jofi.ProviderChange). Under Felix the api bundle's
     * instrumented event classes need JFR's internal handler classes, which only the boot
     * class loader has (cnf/jofi.bndrun's boot delegation of jdk.jfr.*): without it the
     * registry failed to bind a provider with NoClassDefFoundError as soon as a recording ran.
     */
    @Test
    public void aFlightRecordingOfTheContainerHoldsTheProviderArrivals() throws Exception {
        Path dir = Files.createTempDirectory("jofi-launcher-jfr");
        Path recording = dir.resolve("jofi.jfr");
        try {
            Run run = jofiWith("-XX:StartFlightRecording=filename=" + recording + ",settings=default", null,
                    "info", "-l");

            assertEquals(run.toString(), 0, run.status);
            assertFalse(run.toString(), run.err.contains("NoClassDefFoundError") || run.err.contains("Exception"));
            List<String> arrived = new ArrayList<>();
            for (jdk.jfr.consumer.RecordedEvent e : jdk.jfr.consumer.RecordingFile.readAllEvents(recording)) {
                if (e.getEventType().getName().equals("io.jofi.ProviderChange") && e.getBoolean("arrived")) {
                    arrived.add(e.getString("provider"));
                }
            }
            assertTrue("provider arrivals recorded: " + arrived + "\n" + run, arrived.containsAll(List.of("tcp", "shm")));
        } finally {
            Files.deleteIfExists(recording);
            Files.deleteIfExists(dir);
        }
    }

    /**
     * {@code kill} (or {@code timeout}) of the script ends the container too: the script passes
     * SIGTERM on to its JVM. Before, the JVM ran on without its script — a pingpong server kept
     * waiting on its port after the script that started it was gone.
     */
    @Test
    public void terminatingTheScriptEndsItsContainer() throws Exception {
        ProcessBuilder builder = new ProcessBuilder("./jofi", "pingpong", "-p", "tcp", "-e", "msg", "-B", "0")
                .directory(home.toFile())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("JOFI_NO_BUILD", "1");
        builder.environment().put("JAVA", new File(System.getProperty("java.home"), "bin/java").getPath());
        builder.environment().put("JOFI_JAVA_OPTS", START_OPTS);
        Process script = builder.start();
        List<ProcessHandle> container = new ArrayList<>();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
            while (container.isEmpty() && System.nanoTime() < deadline && script.isAlive()) {
                script.descendants().filter(h -> h.info().command().map(c -> c.endsWith("java")).orElse(false))
                        .forEach(container::add);
                Thread.sleep(50);
            }
            assertFalse("the script started no JVM (still running: " + script.isAlive() + ")", container.isEmpty());
            Thread.sleep(2000); // the container is up and the server waits for its client
            assertTrue("the server waits for a client", script.isAlive());

            script.destroy(); // SIGTERM to the script only, as kill and timeout send it

            assertTrue("the script ends", script.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            for (ProcessHandle jvm : container) {
                assertTrue("the container's JVM " + jvm.pid() + " ends with its script",
                        jvm.onExit().thenApply(h -> true).completeOnTimeout(false, TIMEOUT_SECONDS, TimeUnit.SECONDS).get());
            }
        } finally {
            container.forEach(ProcessHandle::destroyForcibly);
            script.destroyForcibly();
        }
    }

    /** {@link #jofi} with {@code javaOpts} (or none) after {@link #START_OPTS} as the script's JOFI_JAVA_OPTS. */
    private static Run jofiWith(String javaOpts, String input, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add("./jofi");
        command.addAll(List.of(args));
        Path dir = Files.createTempDirectory("jofi-launcher-it");
        Path in = dir.resolve("stdin");
        Path out = dir.resolve("stdout");
        Path err = dir.resolve("stderr");
        Files.writeString(in, input == null ? "" : input, StandardCharsets.UTF_8);
        try {
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(home.toFile())
                    .redirectInput(in.toFile())
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            Map<String, String> env = builder.environment();
            env.put("JOFI_NO_BUILD", "1");
            // the JDK running this test, whatever java is on the PATH
            env.put("JAVA", new File(System.getProperty("java.home"), "bin/java").getPath());
            // nothing from the caller's environment may change what the container prints
            // (a provider filter, extra JVM options, the JVM's "Picked up ..." notes on stderr)
            for (String name : List.of("FI_PROVIDER", "JOFI_JAVA_OPTS", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS")) {
                env.remove(name);
            }
            env.put("JOFI_JAVA_OPTS", javaOpts == null ? START_OPTS : START_OPTS + " " + javaOpts);
            Process process = builder.start();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
                fail(String.join(" ", command) + " did not finish within " + TIMEOUT_SECONDS + " s; stdout:\n"
                        + Files.readString(out, StandardCharsets.UTF_8) + "\nstderr:\n"
                        + Files.readString(err, StandardCharsets.UTF_8));
            }
            return new Run(command, process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            for (Path file : List.of(in, out, err, dir)) {
                Files.deleteIfExists(file);
            }
        }
    }
}
