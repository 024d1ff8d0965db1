package io.jofi.tools;

/** Exit statuses of the jofi commands (and of {@code ./jofi}). */
public final class ExitStatus {
    /** The command did what was asked. */
    public static final int OK = 0;
    /** The command ran but failed; the reason is on stderr. */
    public static final int FAILURE = 1;
    /** The command line was wrong (unknown command or option); the reason is on stderr. */
    public static final int USAGE = 2;

    private ExitStatus() {
    }
}
