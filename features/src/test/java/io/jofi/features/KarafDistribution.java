package io.jofi.features;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds the Apache Karaf minimal distribution in the local Maven repository, downloading it
 * once with Maven itself ({@code mvn dependency:get}) when it is missing, and skips the test
 * with the reason when Maven runs offline or the download cannot reach the repository.
 *
 * <p>Why not a plain dependency of the pom: an offline build without the distribution would
 * then fail as a whole instead of skipping this one test with a clear line.
 */
final class KarafDistribution {
    private static final String GROUP = "org.apache.karaf";
    private static final String ARTIFACT = "apache-karaf-minimal";
    private static final long DOWNLOAD_TIMEOUT_SECONDS = 300;

    private KarafDistribution() {
    }

    /** The distribution's tar.gz for {@code version}; aborts (skips) the test when offline. */
    static Path tarGz(String version) throws IOException, InterruptedException {
        Path localRepository = Path.of(Props.required("jofi.maven.localRepository"));
        Path file = localRepository.resolve(GROUP.replace('.', '/')).resolve(ARTIFACT).resolve(version)
                .resolve(ARTIFACT + "-" + version + ".tar.gz");
        if (Files.isRegularFile(file)) {
            return file;
        }
        String coordinates = GROUP + ":" + ARTIFACT + ":" + version + ":tar.gz";
        if ("offline=true".equals(System.getProperty("jofi.maven.offline"))) {
            skip("Maven runs offline (-o) and the Karaf distribution " + coordinates + " is not in "
                    + localRepository + ": build once online to download it");
        }
        download(coordinates, localRepository);
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("mvn dependency:get " + coordinates + " left no " + file);
        }
        return file;
    }

    private static void download(String coordinates, Path localRepository) throws IOException, InterruptedException {
        Path mvn = Path.of(Props.required("jofi.maven.home"), "bin", "mvn");
        Path log = Files.createTempFile("jofi-karaf-download", ".log");
        try {
            Process p = new ProcessBuilder(List.of(mvn.toString(), "-B", "-q",
                    Props.required("jofi.maven.dependencyPlugin") + ":get",
                    "-Dartifact=" + coordinates, "-Dmaven.repo.local=" + localRepository))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(DOWNLOAD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                throw new IllegalStateException("mvn dependency:get " + coordinates + " still running after "
                        + DOWNLOAD_TIMEOUT_SECONDS + " s");
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                // Unreachable network is "offline" too: skip, saying so; any other failure fails.
                if (unreachable(output)) {
                    skip("cannot download the Karaf distribution " + coordinates + " (no network?): "
                            + lastLine(output));
                }
                throw new IllegalStateException("mvn dependency:get " + coordinates + " failed:\n" + output);
            }
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** Skips the test, saying why in the build's output too (the report alone is easy to miss). */
    private static void skip(String reason) {
        System.out.println("KarafFeatureIT SKIPPED: " + reason);
        Assumptions.abort(reason);
    }

    private static boolean unreachable(String output) {
        return output.contains("UnknownHostException") || output.contains("Could not transfer")
                || output.contains("Network is unreachable") || output.contains("Connection refused")
                || output.contains("offline mode");
    }

    private static String lastLine(String output) {
        String[] lines = output.strip().split("\n");
        return lines.length == 0 ? "" : lines[lines.length - 1];
    }
}
