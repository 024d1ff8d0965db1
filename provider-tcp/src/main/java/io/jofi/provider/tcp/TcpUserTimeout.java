package io.jofi.provider.tcp;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.channels.SocketChannel;

/**
 * {@code TCP_USER_TIMEOUT} on a connection's socket ({@link TcpSettings#userTimeout}): the
 * kernel ends a connection whose sent data stays unacknowledged for that long (a cut link, a
 * dead host with data in flight), while a peer that is alive but slow to consume keeps
 * acknowledging (zero-window probes) and is left alone; with keepalive on, it also bounds an
 * idle connection's unanswered probes. The kernel also counts a zero window against it, however
 * promptly the peer answers the window probes, so {@link ZeroWindowWatch} turns it off while
 * that is so.
 *
 * <p>Java has no such socket option, so this sets it through {@code setsockopt(2)} (JNA) on
 * the channel's descriptor, which the JDK's {@code sun.nio.ch.SelChImpl#getFDVal} tells when
 * {@code java.base} exports {@code sun.nio.ch} to this code
 * ({@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}; {@code ./jofi} and the tests pass
 * it). Where any part is missing (not Linux, no JNA, the package not exported) it is
 * {@linkplain #availability() unavailable, with the reason}, logged once, and connections keep
 * the kernel''s retransmission limit ({@code net.ipv4.tcp_retries2}, about 15 minutes) and the
 * provider's {@code progressTimeout}; {@code jofi info -e} shows which.
 */
final class TcpUserTimeout {
    /** {@code IPPROTO_TCP}. */
    static final int IPPROTO_TCP = 6;
    /** {@code TCP_USER_TIMEOUT} (linux/tcp.h). */
    static final int TCP_USER_TIMEOUT = 18;

    private static final System.Logger LOG = System.getLogger(TcpUserTimeout.class.getName());
    private static final Availability AVAILABILITY = probe();

    private TcpUserTimeout() {
    }

    /**
     * Whether {@code TCP_USER_TIMEOUT} can be set in this JVM, and why not when it cannot.
     *
     * @param available true when {@link #apply} sets the option
     * @param reason    what it rests on, or what is missing and how to supply it
     */
    record Availability(boolean available, String reason) {
        @Override
        public String toString() {
            return (available ? "available (" : "unavailable: ") + reason + (available ? ")" : "");
        }
    }

    /** Whether the option can be set here (computed once per class loader). */
    static Availability availability() {
        return AVAILABILITY;
    }

    /**
     * Sets {@code TCP_USER_TIMEOUT} of {@code ch} to {@code millis} (0: leaves the kernel's
     * default); a no-op where it is {@linkplain #availability() unavailable}.
     *
     * @throws IOException when the kernel refuses the option (its errno in the message)
     */
    static void apply(SocketChannel ch, int millis) throws IOException {
        if (millis <= 0 || !AVAILABILITY.available) {
            return;
        }
        int fd = descriptor(ch);
        Sockopt.set(fd, TCP_USER_TIMEOUT, millis);
        ZeroWindowWatch.watch(ch, fd, millis);
    }

    private static int descriptor(SocketChannel ch) throws IOException {
        try {
            return (int) Descriptors.GET_FD_VAL.invoke(ch);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException("cannot read the socket's descriptor: " + e, e);
        }
    }

    private static Availability probe() {
        String os = System.getProperty("os.name", "");
        if (!os.toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            return unavailable("not Linux (os.name " + os + "): TCP_USER_TIMEOUT is Linux's");
        }
        try {
            Class.forName("com.sun.jna.Native", false, TcpUserTimeout.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return unavailable("JNA (com.sun.jna) is not visible to the tcp provider (" + e + ")");
        }
        Module base = Object.class.getModule();
        if (!base.isExported("sun.nio.ch", TcpUserTimeout.class.getModule())) {
            return unavailable("java.base does not export sun.nio.ch (the socket's descriptor); run java with "
                    + "--add-exports java.base/sun.nio.ch=ALL-UNNAMED");
        }
        try {
            Descriptors.GET_FD_VAL.type();
            Sockopt.check();
        } catch (LinkageError | RuntimeException e) {
            Throwable cause = e instanceof ExceptionInInitializerError && e.getCause() != null ? e.getCause() : e;
            return unavailable("the socket's descriptor or setsockopt through JNA cannot be reached: " + cause);
        }
        return new Availability(true, "setsockopt(IPPROTO_TCP, TCP_USER_TIMEOUT) through JNA, off while a peer "
                + "that acknowledges holds its window at zero (TCP_INFO)");
    }

    /** Says once why the option is off; the message is a MessageFormat pattern, so a quote is doubled. */
    static Availability unavailable(String reason) {
        LOG.log(System.Logger.Level.INFO, "TCP_USER_TIMEOUT unavailable: {0}; a cut link with data in flight "
                + "is found by progressTimeout or the kernel''s retransmission limit", reason);
        return new Availability(false, reason);
    }

    /** The JDK's descriptor accessor, looked up only once the package is known to be exported. */
    private static final class Descriptors {
        static final MethodHandle GET_FD_VAL = lookup();

        private static MethodHandle lookup() {
            try {
                // from the boot loader: a bundle's loader sees only what it imports, and java.base is not imported
                Class<?> selCh = Class.forName("sun.nio.ch.SelChImpl", false, null);
                return MethodHandles.lookup().findVirtual(selCh, "getFDVal", MethodType.methodType(int.class))
                        .asType(MethodType.methodType(int.class, SocketChannel.class));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("sun.nio.ch.SelChImpl.getFDVal not found: " + e, e);
            }
        }
    }
}
