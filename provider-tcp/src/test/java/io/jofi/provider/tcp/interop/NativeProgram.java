package io.jofi.provider.tcp.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Compiles one C test program of this module ({@code src/test/c/NAME.c}) against libfabric into
 * {@code target/NAME}, once per test JVM: a test that needs it is skipped, saying to
 * {@code apt-get install libfabric-dev}, when gcc, the header or the library is missing, and
 * fails on any other compile error.
 */
public final class NativeProgram {
    private static final String INSTALL_HINT =
            "apt-get install -y libfabric-dev libfabric-bin (and gcc) to run the libfabric interop tests";
    /** Per program: the executable, or the reason it is not there ("skip: ..." or "fail: ..."). */
    private static final ConcurrentHashMap<String, Object> BUILT = new ConcurrentHashMap<>();

    private NativeProgram() {
    }

    /** The executable of {@code src/test/c/<name>.c}, compiled at the first call in this JVM. */
    public static Path require(String name) {
        Object r = BUILT.computeIfAbsent(name, NativeProgram::compile);
        if (r instanceof Path p) {
            return p;
        }
        String why = (String) r;
        if (why.startsWith("skip: ")) {
            Assumptions.abort("native libfabric not usable: " + why.substring(6) + " -- " + INSTALL_HINT);
        }
        throw new AssertionError(name + ".c does not compile:\n" + why.substring(6));
    }

    private static Object compile(String name) {
        Object r = build(name);
        if (r instanceof String why && why.startsWith("skip: ")) {
            // once on the console too: surefire's summary only counts skipped tests
            System.err.println("[jofi] libfabric interop tests SKIPPED: " + why.substring(6) + " -- " + INSTALL_HINT);
        }
        return r;
    }

    private static Object build(String name) {
        Path base = moduleDirectory(name);
        Path source = base.resolve("src/test/c/" + name + ".c");
        Path target = base.resolve("target");
        try {
            Files.createDirectories(target);
            // to a private name, then moved into place: a concurrent JVM never runs a half-written file
            Path temporary = Files.createTempFile(target, name, ".tmp");
            List<String> command = List.of("gcc", "-O2", "-Wall", "-o", temporary.toString(), source.toString(), "-lfabric");
            Process gcc;
            try {
                gcc = new ProcessBuilder(command).redirectErrorStream(true).start();
            } catch (IOException e) {
                Files.deleteIfExists(temporary);
                return "skip: gcc cannot be run (" + e.getMessage() + ")";
            }
            String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!gcc.waitFor(60, TimeUnit.SECONDS)) {
                gcc.destroyForcibly();
                return "fail: gcc did not finish within 60 s";
            }
            if (gcc.exitValue() != 0) {
                Files.deleteIfExists(temporary);
                if (out.contains("rdma/fabric.h: No such file") || out.contains("cannot find -lfabric")) {
                    return "skip: the libfabric header or library is missing (gcc: "
                            + out.strip().lines().findFirst().orElse("") + ")";
                }
                return "fail: " + String.join(" ", command) + "\n" + out;
            }
            Path output = target.resolve(name);
            Files.move(temporary, output, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return output;
        } catch (IOException e) {
            return "fail: compiling " + source + ": " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "fail: interrupted while compiling " + source;
        }
    }

    /** Surefire runs in the module directory; {@code basedir} is set when it is not. */
    private static Path moduleDirectory(String name) {
        String basedir = System.getProperty("basedir");
        String source = "src/test/c/" + name + ".c";
        if (basedir != null && Files.isRegularFile(Path.of(basedir, source))) {
            return Path.of(basedir);
        }
        Path here = Path.of("").toAbsolutePath();
        return Files.isRegularFile(here.resolve(source)) ? here : here.resolve("provider-tcp");
    }
}
