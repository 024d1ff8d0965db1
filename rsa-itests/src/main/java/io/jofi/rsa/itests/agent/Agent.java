package io.jofi.rsa.itests.agent;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;

/**
 * Starts a container's agent: applies the configurations the launcher was given, then obeys the
 * test's commands, one line each on stdin, answering one {@code @@ok}/{@code @@err} line each on
 * stdout.
 */
public final class Agent implements BundleActivator {
    /** Framework property: a properties file of {@code pid/key=value} lines applied at start. */
    static final String CONFIGS_PROPERTY = "jofi.rsa.agent.configs";

    private CommandLoop loop;

    @Override
    public void start(BundleContext context) throws Exception {
        new InitialConfigurations(context).apply(context.getProperty(CONFIGS_PROPERTY));
        Replies replies = new Replies(System.out);
        Commands commands = new Commands(context, replies);
        loop = new CommandLoop(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)),
                replies, commands, context);
        loop.start();
        replies.line("@@ready");
    }

    @Override
    public void stop(BundleContext context) {
        loop.stopListening();
    }
}
