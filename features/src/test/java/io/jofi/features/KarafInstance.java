package io.jofi.features;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One unpacked Apache Karaf in its own folder: configured to need no network (every bundle a
 * features XML names is put into its {@code system/} repository), started as {@code bin/karaf
 * server} and driven by its own {@code bin/client} over ssh on a free port; {@link #close()}
 * ends it and everything it started.
 */
final class KarafInstance implements AutoCloseable {
    private static final Pattern MVN_URL = Pattern.compile("mvn:([^/<\\s]+)/([^/<\\s]+)/([^/<\\s$]+)(?:/([^/<\\s]+)/([^/<\\s]+))?");
    private static final long CLIENT_TIMEOUT_SECONDS = 120;
    private static final long STOP_TIMEOUT_SECONDS = 30;
    private static final String USER = "karaf";

    private final Path work;
    private final Path home;
    private final int sshPort;
    private Process karaf;

    private KarafInstance(Path work, Path home, int sshPort) {
        this.work = work;
        this.home = home;
        this.sshPort = sshPort;
    }

    /** Unpacks {@code tarGz} into a fresh {@code work} folder and configures it (user, ssh port, no remote repositories). */
    static KarafInstance unpack(Path tarGz, Path work) throws IOException, InterruptedException {
        deleteTree(work);
        Files.createDirectories(work);
        run(List.of("tar", "xzf", tarGz.toString(), "-C", work.toString()), work, Map.of(), 120);
        Path home;
        try (Stream<Path> entries = Files.list(work)) {
            home = entries.filter(Files::isDirectory).findFirst()
                    .orElseThrow(() -> new IllegalStateException(tarGz + " unpacked to nothing in " + work));
        }
        KarafInstance karaf = new KarafInstance(work, home, freePort());
        karaf.configure();
        return karaf;
    }

    private void configure() throws IOException {
        // A user for bin/client (Karaf ships them commented out).
        Files.writeString(home.resolve("etc/users.properties"),
                "\n" + USER + " = " + USER + ",_g_:admingroup\n"
                        + "_g_\\:admingroup = group,admin,manager,viewer,systembundles,ssh\n",
                StandardCharsets.ISO_8859_1, StandardOpenOption.APPEND);
        replaceLine(home.resolve("etc/org.apache.karaf.shell.cfg"), "sshPort", "sshPort = " + sshPort);
        // An EC host key: generated in milliseconds (Karaf's default, a 2048-bit RSA key, took
        // seconds of the boot; the key's kind is not what this test is about).
        replaceLine(home.resolve("etc/org.apache.karaf.shell.cfg"), "algorithm", "algorithm = EC");
        replaceLine(home.resolve("etc/org.apache.karaf.shell.cfg"), "keySize", "keySize = 256");
        // No remote repository and a private local one: every bundle must come from system/,
        // so the test proves the features XML names everything and needs no network.
        Path mvnCfg = home.resolve("etc/org.ops4j.pax.url.mvn.cfg");
        String cfg = Files.readString(mvnCfg, StandardCharsets.ISO_8859_1);
        cfg = cfg.replaceAll("(?m)^org\\.ops4j\\.pax\\.url\\.mvn\\.repositories\\s*=(?:.*\\\\\\R)*.*$",
                "org.ops4j.pax.url.mvn.repositories=");
        cfg += "\norg.ops4j.pax.url.mvn.localRepository=" + work.resolve("m2").toUri() + "\n";
        Files.writeString(mvnCfg, cfg, StandardCharsets.ISO_8859_1);
    }

    /**
     * Puts the features XML (as {@code groupId:artifactId:version:xml:features}) and every
     * bundle it names into {@code system/}; {@code fileOf} gives the file of an artifactId.
     */
    void stage(Path featuresXml, String groupId, String artifactId, String version,
            Function<String, Path> fileOf) throws IOException {
        copy(featuresXml, groupId, artifactId, version, artifactId + "-" + version + "-features.xml");
        Matcher m = MVN_URL.matcher(Files.readString(featuresXml, StandardCharsets.UTF_8));
        while (m.find()) {
            if (m.group(4) != null) {
                continue; // a features repository, not a bundle
            }
            String a = m.group(2);
            copy(fileOf.apply(a), m.group(1), a, m.group(3), a + "-" + m.group(3) + ".jar");
        }
    }

    /**
     * Puts bundles that Karaf's own features XMLs name, and its minimal distribution does not
     * carry, into {@code system/}: {@code mvn:GROUP/ARTIFACT/VERSION/TYPE/CLASSIFIER=file}, several
     * separated by commas.
     */
    void stageSystemBundles(String list) throws IOException {
        for (String entry : list.split(",")) {
            String[] urlAndFile = entry.trim().split("=", 2);
            String[] gav = urlAndFile[0].substring("mvn:".length()).split("/");
            if (urlAndFile.length != 2 || gav.length != 5 || !urlAndFile[0].startsWith("mvn:")) {
                throw new IllegalArgumentException("not mvn:GROUP/ARTIFACT/VERSION/TYPE/CLASSIFIER=file: " + entry);
            }
            Path file = Path.of(urlAndFile[1]);
            if (!Files.isRegularFile(file)) {
                throw new IllegalStateException(entry + ": no such file");
            }
            copy(file, gav[0], gav[1], gav[2], gav[1] + "-" + gav[2] + "-" + gav[4] + "." + gav[3]);
        }
    }

    private void copy(Path file, String groupId, String artifactId, String version, String name) throws IOException {
        Path target = home.resolve("system").resolve(groupId.replace('.', '/')).resolve(artifactId)
                .resolve(version).resolve(name);
        Files.createDirectories(target.getParent());
        Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Starts {@code bin/karaf server}; {@link #client} waits for its ssh port. */
    void start() throws IOException {
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/karaf").toString(), "server")
                .directory(home.toFile())
                .redirectErrorStream(true)
                .redirectOutput(work.resolve("karaf.out").toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        karaf = pb.start();
        karaf.getOutputStream().close();
    }

    /**
     * Runs {@code commands} (Karaf shell syntax, {@code ;} between commands) through
     * {@code bin/client}, retrying the connection while Karaf boots, and returns what it printed.
     *
     * @throws IllegalStateException when the client fails, or Karaf is gone
     */
    String client(String commands) throws IOException, InterruptedException {
        if (karaf == null || !karaf.isAlive()) {
            throw new IllegalStateException("Karaf is not running; its output: " + work.resolve("karaf.out"));
        }
        Path clientHome = work.resolve("client-home");
        Files.createDirectories(clientHome);
        // user.home: the client keeps its known hosts there, not in the real home
        return run(List.of(home.resolve("bin/client").toString(), "-a", Integer.toString(sshPort), "-u", USER,
                "-p", USER, "-r", "90", "-d", "1", commands), home,
                // each call is a short-lived client JVM: C1 alone and the serial collector start it with less CPU
                Map.of("JAVA_OPTS", "-Duser.home=" + clientHome + " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"),
                CLIENT_TIMEOUT_SECONDS);
    }

    /**
     * Writes {@code etc/PID.cfg} with {@code properties}: Karaf's file install hands it to
     * Configuration Admin within a second or two, for a bundle installed before or after.
     */
    void configure(String pid, Map<String, String> properties) throws IOException {
        StringBuilder cfg = new StringBuilder();
        properties.forEach((k, v) -> cfg.append(k).append(" = ").append(v).append('\n'));
        Path file = home.resolve("etc").resolve(pid + ".cfg");
        Path partial = file.resolveSibling(pid + ".cfg.partial");
        Files.writeString(partial, cfg, StandardCharsets.ISO_8859_1);
        Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Waits up to {@code seconds} for {@code text} in Karaf's log; whether it came. */
    boolean awaitLog(String text, long seconds) throws IOException, InterruptedException {
        Path log = home.resolve("data/log/karaf.log");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() - deadline < 0) {
            if (Files.isRegularFile(log) && Files.readString(log, StandardCharsets.UTF_8).contains(text)) {
                return true;
            }
            Thread.sleep(250);
        }
        return false;
    }

    /** A free TCP port, for a server the test starts. */
    static int freeTcpPort() throws IOException {
        return freePort();
    }

    /** The folder Karaf runs in (its data/log/karaf.log tells what went wrong). */
    Path home() {
        return home;
    }

    @Override
    public void close() {
        if (karaf == null) {
            return;
        }
        try {
            stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            karaf.descendants().forEach(ProcessHandle::destroyForcibly);
            karaf.destroyForcibly();
        }
    }

    private void stop() throws InterruptedException {
        List<ProcessHandle> all = new ArrayList<>();
        karaf.descendants().forEach(all::add);
        all.add(karaf.toHandle());
        // SIGTERM first: Karaf's shutdown hook stops the framework (and the providers) cleanly.
        all.forEach(ProcessHandle::destroy);
        if (!karaf.waitFor(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            all.forEach(ProcessHandle::destroyForcibly);
            karaf.waitFor(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        for (ProcessHandle h : all) {
            h.onExit().completeOnTimeout(h, STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS).join();
        }
    }

    private static String run(List<String> command, Path dir, Map<String, String> env, long timeoutSeconds)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().putAll(env);
        Path out = Files.createTempFile("jofi-karaf", ".out");
        pb.redirectOutput(out.toFile());
        try {
            Process p = pb.start();
            try (OutputStream in = p.getOutputStream()) {
                // bin/client asks whether to trust the new host key: yes (a local test instance)
                in.write("y\n".getBytes(StandardCharsets.US_ASCII));
            } catch (IOException closedEarly) {
                // the process did not read its input: fine
            }
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                throw new IllegalStateException(command.get(0) + " still running after " + timeoutSeconds
                        + " s: " + Files.readString(out));
            }
            String output = Files.readString(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " exited " + p.exitValue() + ":\n" + output);
            }
            return output;
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static void replaceLine(Path file, String key, String line) throws IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(file, StandardCharsets.ISO_8859_1));
        lines.removeIf(l -> l.matches("\\s*" + Pattern.quote(key) + "\\s*=.*"));
        lines.add(line);
        Files.write(file, lines, StandardCharsets.ISO_8859_1);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
