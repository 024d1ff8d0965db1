package io.jofi.provider.verbs.binding;

/**
 * The few C library functions the provider needs to sleep on a native descriptor without
 * blocking a thread for ever: {@code fcntl} (make a channel's fd non-blocking) and
 * {@code poll} (wait for it with a timeout). Bound by JNA direct mapping to the process's
 * C library by {@link VerbsLibraries}.
 */
public final class Libc {
    private Libc() {
    }

    /** {@code int fcntl(int fd, int cmd, int arg)} (F_GETFL / F_SETFL). */
    public static native int fcntl(int fd, int cmd, int arg);

    /** {@code int poll(struct pollfd *fds, nfds_t nfds, int timeout_ms)}. */
    public static native int poll(long fds, long nfds, int timeoutMs);

    /** Makes {@code fd} non-blocking; returns 0 or -1 (errno in {@code Native.getLastError()}). */
    public static int setNonBlocking(int fd) {
        int flags = fcntl(fd, VerbsConstants.F_GETFL, 0);
        if (flags < 0) {
            return -1;
        }
        return fcntl(fd, VerbsConstants.F_SETFL, flags | VerbsConstants.O_NONBLOCK);
    }
}
