package io.jofi;

/**
 * The control-path failure of a fabric call: opening, binding, enabling, connecting,
 * closing. Carries the positive {@link Errno} value the C call would have returned as
 * {@code -FI_X}, and a message that says in words what was wrong.
 *
 * <p>Checked on purpose: {@code close()} answering {@link Errno#EBUSY} (R9) or a provider
 * that departed answering {@link Errno#ENODEV} (R15) are conditions an application must
 * decide about, not bugs.
 */
public class FabricException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int errno;

    /**
     * @param errno   a positive {@link Errno} value (a negative one is taken as its absolute value)
     * @param message what was wrong, in words
     */
    public FabricException(int errno, String message) {
        super(message);
        this.errno = Math.abs(errno);
    }

    public FabricException(int errno, String message, Throwable cause) {
        super(message, cause);
        this.errno = Math.abs(errno);
    }

    /** The positive errno value, e.g. {@link Errno#EBUSY}. */
    public int errno() {
        return errno;
    }

    /** Throws a {@code FabricException} when {@code rc} is a negative errno, else returns it. */
    public static int check(int rc, String what) throws FabricException {
        if (rc < 0) {
            throw new FabricException(-rc, what + ": " + Errno.strerror(-rc));
        }
        return rc;
    }

    @Override
    public String toString() {
        return "FabricException[" + Errno.name(errno) + "]: " + getMessage();
    }
}
