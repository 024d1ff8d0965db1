package io.jofi.provider.tcp;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.ptr.IntByReference;
import java.lang.reflect.Method;
import java.nio.channels.SocketChannel;

/** Reads a socket's TCP_USER_TIMEOUT back from the kernel (getsockopt through JNA), for the tests. */
final class TcpOptionReader {
    interface LibC extends Library {
        int getsockopt(int fd, int level, int name, IntByReference value, IntByReference length) throws LastErrorException;
    }

    private static final LibC LIBC = Native.load("c", LibC.class);

    private TcpOptionReader() {
    }

    /** getsockopt(IPPROTO_TCP, TCP_USER_TIMEOUT) of {@code ch}, ms. */
    static int userTimeout(SocketChannel ch) throws Exception {
        Method fd = Class.forName("sun.nio.ch.SelChImpl").getMethod("getFDVal");
        IntByReference value = new IntByReference();
        LIBC.getsockopt((int) fd.invoke(ch), 6, 18, value, new IntByReference(4));
        return value.getValue();
    }
}
