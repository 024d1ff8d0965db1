package io.jofi.rsa.itests.agent;

import java.io.BufferedReader;
import java.io.IOException;

import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;

/**
 * Reads the test's commands from stdin on one thread and runs each to its answer before the
 * next. End of input (the test JVM is gone) stops the framework, so no container outlives its test.
 */
final class CommandLoop implements Runnable {
    private final BufferedReader in;
    private final Replies replies;
    private final Commands commands;
    private final BundleContext context;
    private final Thread thread = new Thread(this, "jofi-rsa-agent");
    private volatile boolean listening = true;

    CommandLoop(BufferedReader in, Replies replies, Commands commands, BundleContext context) {
        this.in = in;
        this.replies = replies;
        this.commands = commands;
        this.context = context;
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void stopListening() {
        listening = false;
    }

    @Override
    public void run() {
        try {
            String line;
            while (listening && (line = in.readLine()) != null) {
                if (!line.isBlank()) {
                    commands.run(line.trim().split("\\s+"));
                }
            }
        } catch (IOException e) {
            replies.error("stdin: " + Failure.describe(e));
        }
        if (listening) {
            stopFramework();
        }
    }

    private void stopFramework() {
        try {
            context.getBundle(0).stop();
        } catch (BundleException | IllegalStateException e) {
            replies.error("stopping the framework: " + Failure.describe(e));
        }
    }
}
