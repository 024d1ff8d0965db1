package io.jofi.tools;

/**
 * A command failed for a reason the user can act on. The message is the one line printed on
 * stderr (prefixed with {@code jofi <command>:}); the status is the exit status.
 */
public final class CommandFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;

    public CommandFailure(String reason) {
        this(reason, ExitStatus.FAILURE);
    }

    public CommandFailure(String reason, int status) {
        super(reason, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
