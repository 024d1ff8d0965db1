package io.jofi.tools;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The encoding of a command line in the {@value CommandLineRunner#COMMAND_PROPERTY} system
 * property: every argument Base64-encoded (UTF-8), joined with commas. Any argument survives
 * the trip, empty ones and those with spaces or newlines included. The {@code jofi} script
 * encodes with {@code base64 -w0}.
 */
final class CommandLineArgs {
    private CommandLineArgs() {
    }

    static String encode(List<String> args) {
        List<String> parts = new ArrayList<>(args.size());
        for (String arg : args) {
            parts.add(Base64.getEncoder().encodeToString(arg.getBytes(StandardCharsets.UTF_8)));
        }
        return String.join(",", parts);
    }

    static List<String> decode(String encoded) {
        List<String> args = new ArrayList<>();
        if (encoded.isEmpty()) {
            return args;
        }
        for (String part : encoded.split(",", -1)) {
            args.add(new String(Base64.getDecoder().decode(part.trim()), StandardCharsets.UTF_8));
        }
        return args;
    }
}
