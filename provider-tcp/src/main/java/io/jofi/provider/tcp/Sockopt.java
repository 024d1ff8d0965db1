package io.jofi.provider.tcp;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.ptr.IntByReference;
import java.io.IOException;

/**
 * {@code setsockopt(2)} and {@code getsockopt(2)} of {@code IPPROTO_TCP} options through JNA:
 * the only class that names JNA, loaded only after {@link TcpUserTimeout} found JNA visible
 * (the bundle imports {@code com.sun.jna} optionally).
 */
final class Sockopt {
    /** libc's calls. */
    interface LibC extends Library {
        int setsockopt(int fd, int level, int name, IntByReference value, int length) throws LastErrorException;

        int getsockopt(int fd, int level, int name, byte[] value, IntByReference length) throws LastErrorException;
    }

    private static final LibC LIBC = Native.load("c", LibC.class);

    private Sockopt() {
    }

    /** Loads libc's binding (a failure surfaces as a {@link LinkageError} or runtime exception). */
    static void check() {
        LIBC.hashCode();
    }

    /** Sets the integer option {@code name} of {@code fd}'s TCP level. */
    static void set(int fd, int name, int value) throws IOException {
        try {
            LIBC.setsockopt(fd, TcpUserTimeout.IPPROTO_TCP, name, new IntByReference(value), Integer.BYTES);
        } catch (LastErrorException e) {
            throw new IOException("setsockopt(fd " + fd + ", IPPROTO_TCP, " + name + ", " + value + "): errno "
                    + e.getErrorCode(), e);
        }
    }

    /** Reads option {@code name} of {@code fd}'s TCP level into {@code into}; the bytes the kernel wrote. */
    static int get(int fd, int name, byte[] into) throws IOException {
        IntByReference length = new IntByReference(into.length);
        try {
            LIBC.getsockopt(fd, TcpUserTimeout.IPPROTO_TCP, name, into, length);
        } catch (LastErrorException e) {
            throw new IOException("getsockopt(fd " + fd + ", IPPROTO_TCP, " + name + "): errno " + e.getErrorCode(), e);
        }
        return length.getValue();
    }
}
