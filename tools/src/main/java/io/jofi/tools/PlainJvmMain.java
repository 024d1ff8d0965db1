package io.jofi.tools;

import java.util.Arrays;
import java.util.List;

/**
 * Runs one jofi command in a plain JVM, without a framework:
 * {@code java -cp <api, tools, picocli> io.jofi.tools.PlainJvmMain stat -n -m}, and exits with
 * its status. For the commands that need no provider ({@code stat}); the others answer that
 * there is no Fabrics service. The conformance tests read a child's counters this way, from a
 * process of their own, as {@code ./jofi stat} does.
 */
public final class PlainJvmMain {
    private PlainJvmMain() {
    }

    public static void main(String[] args) {
        String name = args.length == 0 ? "" : args[0];
        List<String> rest = args.length == 0 ? List.of() : Arrays.asList(args).subList(1, args.length);
        System.exit(Commands.run(name, rest, new CommandContext(null, null, System.out, System.err)));
    }
}
