package io.jofi.rsa.itests.agent;

import java.io.PrintStream;

/** Writes the agent's answer lines to stdout, one whole line at a time, between the container's log lines. */
final class Replies {
    private final PrintStream out;

    Replies(PrintStream out) {
        this.out = out;
    }

    synchronized void line(String text) {
        out.println(text.replace('\n', ' ').replace('\r', ' '));
        out.flush();
    }

    void ok(String text) {
        line(text.isEmpty() ? "@@ok" : "@@ok " + text);
    }

    void error(String text) {
        line("@@err " + text);
    }
}
