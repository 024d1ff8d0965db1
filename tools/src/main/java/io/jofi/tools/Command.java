package io.jofi.tools;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * The base of every command: a picocli {@code @CommandLine.Command} class whose options are
 * fields, and whose {@link #execute()} writes to {@link #out()} and returns an
 * {@link ExitStatus}, or throws {@link CommandFailure} with a one-line reason.
 * {@link Commands} creates a fresh instance per run, so a command may keep state in fields.
 */
public abstract class Command implements Callable<Integer> {
    @CommandLine.Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    private CommandContext context;

    final Command with(CommandContext context) {
        this.context = context;
        return this;
    }

    protected final CommandContext context() {
        return context;
    }

    protected final PrintStream out() {
        return context.out();
    }

    /** Runs the command; the options are already parsed into the fields. */
    protected abstract int execute() throws Exception;

    @Override
    public final Integer call() throws Exception {
        return execute();
    }
}
