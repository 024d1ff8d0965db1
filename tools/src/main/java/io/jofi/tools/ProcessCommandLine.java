package io.jofi.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A live process's command line as {@code jofi stat} shows it: read from
 * {@code /proc/PID/cmdline}, with a {@code ./jofi} container's encoded command
 * ({@code -Djofi.command=...}) shown as the {@code jofi ...} command line it stands for.
 */
final class ProcessCommandLine {
    private static final String COMMAND_OPTION = "-D" + CommandLineRunner.COMMAND_PROPERTY + "=";

    private ProcessCommandLine() {
    }

    /** The command line of process {@code pid}, if this system tells it (Linux' /proc). */
    static Optional<String> of(long pid) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            List<String> args = new ArrayList<>();
            int start = 0;
            for (int i = 0; i < raw.length; i++) {
                if (raw[i] == 0) {
                    args.add(new String(raw, start, i - start, StandardCharsets.UTF_8));
                    start = i + 1;
                }
            }
            return args.isEmpty() ? Optional.empty() : Optional.of(readable(args));
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // gone meanwhile, or no /proc: the header goes without it
        }
    }

    /** {@code java ... -Djofi.command=cGluZ3Bvbmc= ... -jar jofi.jar} → {@code jofi pingpong}. */
    static String readable(List<String> args) {
        for (String arg : args) {
            if (arg.startsWith(COMMAND_OPTION)) {
                try {
                    return "jofi " + String.join(" ", CommandLineArgs.decode(arg.substring(COMMAND_OPTION.length())));
                } catch (IllegalArgumentException e) {
                    break; // not ours after all: show the command line as it is
                }
            }
        }
        return String.join(" ", args);
    }
}
