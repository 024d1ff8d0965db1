package io.jofi.tools.ft;

/**
 * A fabtests-style failure: the negative errno a fabtests function would return ({@code ret})
 * and the line fabtests would print for it. The program's exit status is fabtests'
 * {@code ft_exit_code(ret)}: {@code |ret|}, or 1 above 255.
 */
final class FtError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int ret;

    FtError(int ret, String message) {
        super(message, null, false, false);
        this.ret = ret;
    }

    int ret() {
        return ret;
    }

    /** fabtests' ft_exit_code. */
    static int exitCode(int ret) {
        int abs = Math.abs(ret);
        return abs > 255 ? 1 : abs;
    }
}
