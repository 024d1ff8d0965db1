package io.jofi.tools.ft;

import io.jofi.Info;
import io.jofi.tools.Command;
import io.jofi.tools.CommandFailure;
import io.jofi.tools.ExitStatus;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * {@code ./jofi ft PROGRAM [fabtests' options] [SERVER]}: one of fabtests' functional programs
 * played on the JOFI API, with the C program's options (its own getopt letters), output and exit
 * status ({@code ft_exit_code}: 0, or the failing call's errno; 1 for a usage error, as fabtests'
 * {@code -h}). Beyond fabtests: {@code --timeout SECONDS} bounds every wait (the C programs wait
 * forever) and ends a run that waits longer with {@code -FI_ENODATA} (exit 61), as fabtests' own
 * timeouts do.
 */
@CommandLine.Command(name = "ft", modelTransformer = FtCommand.RawArguments.class,
        description = "A fabtests functional program on JOFI: ft PROGRAM [fabtests' options] [SERVER].")
public final class FtCommand extends Command {
    @CommandLine.Parameters(paramLabel = "PROGRAM [OPTIONS] [SERVER]", arity = "1..*",
            description = "fi_msg, fi_rdm, fi_cq_data ... with that program's fabtests options; --timeout SECONDS bounds each wait.")
    private List<String> words;

    /** Everything after PROGRAM is the program's, unparsed: picocli stops at the first positional word. */
    public static final class RawArguments implements CommandLine.IModelTransformer {
        @Override
        public CommandLine.Model.CommandSpec transform(CommandLine.Model.CommandSpec spec) {
            spec.parser().stopAtPositional(true).unmatchedOptionsArePositionalParams(true);
            return spec;
        }
    }

    @Override
    protected int execute() {
        String name = words.get(0);
        FtProgram program = FtPrograms.get(name);
        if (program == null) {
            throw new CommandFailure("unknown program '" + name + "' (programs: " + String.join(", ", FtPrograms.names()) + ")",
                    ExitStatus.USAGE);
        }
        PrintStream err = context().err();
        FtOptions opts = new FtOptions();
        Info hints = new Info();
        List<String> args = new ArrayList<>(words.subList(1, words.size()));
        takeTimeout(args, opts);
        Getopt getopt = new Getopt(program.optstring(), args);
        for (String error : getopt.errors()) {
            err.println(name + ": " + error);
        }
        try {
            for (Getopt.Option option : getopt.options()) {
                if (option.letter() == '?' || option.letter() == 'h') {
                    usage(program, err);
                    return ExitStatus.FAILURE; // fabtests: EXIT_FAILURE
                }
                if (!program.option(option.letter(), option.argument(), opts, hints)) {
                    opts.apply(option.letter(), option.argument(), hints);
                }
            }
            if (!getopt.operands().isEmpty()) {
                opts.dstAddr = getopt.operands().get(0);
            }
            program.configure(opts, hints);
            try (FtSession session = new FtSession(fabrics(), opts, hints, out(), err)) {
                program.run(session);
            }
            return ExitStatus.OK;
        } catch (FtError e) {
            out().flush();
            err.println(e.getMessage());
            return FtError.exitCode(e.ret());
        }
    }

    private io.jofi.Fabrics fabrics() {
        if (context().fabrics() == null) {
            throw new CommandFailure("no Fabrics service: the io.jofi.api bundle is not active");
        }
        return context().fabrics();
    }

    /** Removes {@code --timeout N} / {@code --timeout=N} (fabtests' long option) from the words. */
    private static void takeTimeout(List<String> args, FtOptions opts) {
        for (int i = 0; i < args.size(); i++) {
            String word = args.get(i);
            if (word.equals("--")) {
                return;
            }
            if (word.equals("--timeout") && i + 1 < args.size()) {
                opts.timeoutSeconds = FtOptions.atoi(args.get(i + 1));
                args.subList(i, i + 2).clear();
                i--;
            } else if (word.startsWith("--timeout=")) {
                opts.timeoutSeconds = FtOptions.atoi(word.substring("--timeout=".length()));
                args.remove(i--);
            }
        }
    }

    /** fabtests' ft_usage: the two forms, the description, the options the program takes. */
    private static void usage(FtProgram program, PrintStream err) {
        err.println("Usage:");
        err.println("  " + program.name() + " [OPTIONS]\t\tstart server");
        err.println("  " + program.name() + " [OPTIONS] <host>\tconnect to server");
        err.println();
        err.println(program.description());
        err.println();
        err.println("Options (getopt letters, as fabtests' " + program.name() + "): " + program.optstring());
        err.println("  --timeout <seconds>   bound on every wait (JOFI; the C programs wait forever)");
    }
}
