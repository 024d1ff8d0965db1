package io.jofi.rsa.itests.agent;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import org.osgi.framework.BundleContext;

/**
 * The agent's command table: the first word names the command, the rest are its arguments. Each
 * command answers exactly one line; an exception becomes an {@code @@err} line describing it.
 */
final class Commands {
    /** One command: its arguments (without the name) to the text of its {@code @@ok} answer. */
    interface Command {
        String run(String[] arguments) throws Exception;
    }

    private final Map<String, Command> table = new HashMap<>();
    private final Replies replies;

    Commands(BundleContext context, Replies replies) {
        this.replies = replies;
        BundleCommands bundles = new BundleCommands(context);
        table.put("stop", bundles::stop);
        table.put("start", bundles::start);
        table.put("install", bundles::install);
        table.put("bundles", arguments -> bundles.list());
        table.put("service-property", bundles::serviceProperty);
        table.put("exit", arguments -> bundles.exitLater());
        ExportCommands exports = new ExportCommands(context);
        table.put("export", exports::export);
        table.put("unexport", arguments -> exports.unexport());
        table.put("endpoints", exports::writeEndpoints);
        table.put("config", exports::configure);
        ImportedEcho echo = new ImportedEcho(context);
        table.put("imported", echo::awaitImported);
        CallCommands calls = new CallCommands(echo);
        table.put("echo", calls::echo);
        table.put("promise", calls::promise);
        table.put("future", calls::future);
        table.put("fail", calls::fail);
        table.put("slow", calls::slow);
        table.put("gadget", arguments -> calls.gadget());
        table.put("gadgets", arguments -> calls.gadgetsRead());
        LoadCommands load = new LoadCommands(echo);
        table.put("load", load::load);
        table.put("pending", load::pending);
        table.put("bench", load::bench);
    }

    void run(String[] words) {
        Command command = table.get(words[0]);
        if (command == null) {
            replies.error("unknown command " + words[0] + "; known: " + table.keySet());
            return;
        }
        try {
            replies.ok(command.run(Arrays.copyOfRange(words, 1, words.length)));
        } catch (Exception | Error e) {
            replies.error(words[0] + ": " + Failure.describe(e));
        }
    }
}
