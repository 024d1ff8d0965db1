package io.jofi.tools;

import java.io.PrintWriter;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import picocli.CommandLine;

/**
 * The command set and its dispatcher, shared by the Gogo shell ({@link JofiCommands}) and the
 * non-interactive launcher ({@link CommandLineRunner}). Adding a command (pingpong, bw) is
 * one {@link Command} class, one line in {@link #COMMANDS} and one Gogo method.
 */
public final class Commands {
    private static final Map<String, Supplier<Command>> COMMANDS = new LinkedHashMap<>();

    static {
        COMMANDS.put("info", InfoCommand::new);
        COMMANDS.put("providers", ProvidersCommand::new);
        COMMANDS.put("pingpong", PingpongCommand::new);
        COMMANDS.put("bw", BwCommand::new);
        COMMANDS.put("rma_bw", RmaBwCommand::new);
        COMMANDS.put("stat", StatCommand::new);
        COMMANDS.put("ft", io.jofi.tools.ft.FtCommand::new);
    }

    private Commands() {
    }

    /** The command names, in the order {@code help} lists them. */
    public static Set<String> names() {
        return Collections.unmodifiableSet(COMMANDS.keySet());
    }

    /**
     * Parses {@code args} into a fresh instance of command {@code name} and runs it. Output
     * goes to {@code context.out()}; a failure prints one line on {@code context.err()}.
     *
     * @return the {@link ExitStatus}
     */
    public static int run(String name, List<String> args, CommandContext context) {
        Supplier<Command> factory = COMMANDS.get(name);
        PrintWriter err = new PrintWriter(context.err(), true);
        if (factory == null) {
            err.println("jofi: " + (name.isEmpty() ? "no command" : "unknown command '" + name + "'")
                    + " (commands: " + String.join(", ", names()) + ")");
            return ExitStatus.USAGE;
        }
        String displayName = "jofi " + name;
        PrintWriter out = new PrintWriter(context.out(), true);
        Command command = factory.get().with(context);
        CommandLine commandLine = new CommandLine(command)
                .setCommandName(displayName)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF))
                .setOut(out)
                .setErr(err)
                .setParameterExceptionHandler((e, ignored) -> {
                    err.println(displayName + ": " + e.getMessage() + " (see '" + displayName + " --help')");
                    return ExitStatus.USAGE;
                })
                .setExecutionExceptionHandler((e, ignored, parseResult) -> {
                    err.println(displayName + ": " + reason(e));
                    return e instanceof CommandFailure f ? f.status() : ExitStatus.FAILURE;
                });
        if (command instanceof PerfCommand perf) {
            perf.describeDefaults(commandLine.getCommandSpec());
        }
        try {
            return commandLine.execute(args.toArray(String[]::new));
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** One line saying what went wrong. */
    static String reason(Throwable e) {
        boolean expected = e instanceof CommandFailure || !(e instanceof RuntimeException);
        String line = expected && e.getMessage() != null ? e.getMessage() : e.toString();
        return line.replaceAll("\\s*\\R\\s*", "; ");
    }
}
