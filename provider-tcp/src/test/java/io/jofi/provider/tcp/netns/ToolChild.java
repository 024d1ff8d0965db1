package io.jofi.provider.tcp.netns;

import io.jofi.Fabrics;
import io.jofi.tools.CommandContext;
import io.jofi.tools.Commands;
import java.util.Arrays;
import java.util.List;

/**
 * A child JVM that runs one {@code ./jofi} command ({@code pingpong}, {@code bw}, {@code rma_bw},
 * {@code info}) against the providers of the class path ({@link Fabrics#standalone()}), as
 * {@code ./jofi} would in a namespace, and exits with the command's status.
 */
public final class ToolChild {
    private ToolChild() {
    }

    public static void main(String[] args) {
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        int status = Commands.run(args[0], rest, new CommandContext(Fabrics.standalone(), null, System.out, System.err));
        System.out.flush();
        System.exit(status);
    }
}
