package io.jofi.tools;

import io.jofi.Fabrics;
import java.util.Arrays;
import java.util.List;

/**
 * Runs one jofi command in a plain JVM, without a framework:
 * {@code java -cp <api, tools, picocli, providers> io.jofi.tools.PlainJvmMain info -e}, and exits
 * with its status. The commands get {@code Fabrics.standalone()} (the providers on the class path),
 * but {@code stat}, which reads other processes' counters files and opens no provider (the
 * conformance tests read a child's counters this way, from a process of their own, as
 * {@code ./jofi stat} does).
 */
public final class PlainJvmMain {
    private PlainJvmMain() {
    }

    public static void main(String[] args) {
        String name = args.length == 0 ? "" : args[0];
        List<String> rest = args.length == 0 ? List.of() : Arrays.asList(args).subList(1, args.length);
        Fabrics fabrics = "stat".equals(name) ? null : Fabrics.standalone();
        System.exit(Commands.run(name, rest, new CommandContext(fabrics, null, System.out, System.err)));
    }
}
