package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.Test;

/**
 * {@link TcpSettings#socketSendBuffer} / {@link TcpSettings#socketReceiveBuffer}: 0 leaves the
 * kernel's sizes (auto-tuning), a positive size is set on every connection (and SO_RCVBUF on
 * listening sockets); TCP_NODELAY always; TCP_USER_TIMEOUT ({@link TcpSettings#userTimeout}) on every
 * connection, read back from the kernel with getsockopt.
 */
class TcpSocketOptionsTest {

    private static TcpSettings settings(int snd, int rcv) {
        return settings(snd, rcv, TcpSettings.DEFAULT_USER_TIMEOUT);
    }

    private static TcpSettings settings(int snd, int rcv, int userTimeout) {
        return new TcpSettings() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return TcpSettings.class;
            }

            @Override
            public int unexpectedBytes() {
                return DEFAULT_UNEXPECTED_BYTES;
            }

            @Override
            public int unexpectedMessages() {
                return DEFAULT_UNEXPECTED_MESSAGES;
            }

            @Override
            public int socketSendBuffer() {
                return snd;
            }

            @Override
            public int socketReceiveBuffer() {
                return rcv;
            }

            @Override
            public int connectionSetupTimeout() {
                return DEFAULT_CONNECTION_SETUP_TIMEOUT;
            }

            @Override
            public int keepAliveIdle() {
                return DEFAULT_KEEPALIVE_IDLE;
            }

            @Override
            public int keepAliveInterval() {
                return DEFAULT_KEEPALIVE_INTERVAL;
            }

            @Override
            public int keepAliveCount() {
                return DEFAULT_KEEPALIVE_COUNT;
            }

            @Override
            public int progressTimeout() {
                return DEFAULT_PROGRESS_TIMEOUT;
            }

            @Override
            public int userTimeout() {
                return userTimeout;
            }

            @Override
            public String iface() {
                return "";
            }

            @Override
            public int portLow() {
                return 0;
            }

            @Override
            public int portHigh() {
                return 0;
            }
        };
    }

    @Test
    void zeroKeepsTheKernelDefaultsAndNoDelayIsAlwaysOn() throws Exception {
        TcpProvider p = new TcpProvider();
        p.activate(settings(0, 0));
        try (SocketChannel plain = SocketChannel.open(); SocketChannel ch = SocketChannel.open()) {
            p.configure(ch);
            assertTrue(ch.getOption(StandardSocketOptions.TCP_NODELAY));
            assertEquals(plain.getOption(StandardSocketOptions.SO_SNDBUF), ch.getOption(StandardSocketOptions.SO_SNDBUF));
            assertEquals(plain.getOption(StandardSocketOptions.SO_RCVBUF), ch.getOption(StandardSocketOptions.SO_RCVBUF));
        }
    }

    @Test
    void configuredSizesAreSetOnConnectionsAndListeners() throws Exception {
        TcpProvider p = new TcpProvider();
        p.activate(settings(96 * 1024, 80 * 1024));
        try (SocketChannel ch = SocketChannel.open(); ServerSocketChannel s = ServerSocketChannel.open()) {
            p.configure(ch);
            p.configure(s);
            // Linux doubles the value it is given (bookkeeping overhead); other kernels keep it
            int snd = ch.getOption(StandardSocketOptions.SO_SNDBUF);
            int rcv = ch.getOption(StandardSocketOptions.SO_RCVBUF);
            assertTrue(snd == 96 * 1024 || snd == 2 * 96 * 1024, "SO_SNDBUF " + snd);
            assertTrue(rcv == 80 * 1024 || rcv == 2 * 80 * 1024, "SO_RCVBUF " + rcv);
            int lrcv = s.getOption(StandardSocketOptions.SO_RCVBUF);
            assertTrue(lrcv == 80 * 1024 || lrcv == 2 * 80 * 1024, "listener SO_RCVBUF " + lrcv);
        }
    }

    /** Stopped peers (provider-tcp/README.md "Failure model"): keepalive on every connection, libfabric's timings (5 s idle) by default; 0 turns it off. */
    @Test
    void keepAliveIsOnWithLibfabricsTimingsUnlessTurnedOff() throws Exception {
        TcpProvider p = new TcpProvider();
        try (java.nio.channels.SocketChannel ch = java.nio.channels.SocketChannel.open()) {
            p.configure(ch);
            org.junit.jupiter.api.Assertions.assertEquals(TcpSettings.DEFAULT_KEEPALIVE_IDLE, KeepAlive.idleSeconds(ch));
        }
        System.setProperty("jofi.tcp.keepAliveIdle", "0");
        try {
            TcpProvider off = new TcpProvider();
            try (java.nio.channels.SocketChannel ch = java.nio.channels.SocketChannel.open()) {
                off.configure(ch);
                org.junit.jupiter.api.Assertions.assertEquals(-1, KeepAlive.idleSeconds(ch));
            }
        } finally {
            System.clearProperty("jofi.tcp.keepAliveIdle");
        }
    }

    /** A cut link with data in flight (README "Failure model"): the kernel's TCP_USER_TIMEOUT on every connection. */
    @Test
    void userTimeoutIsSetOnEveryConnectionUnlessTurnedOff() throws Exception {
        assertTrue(TcpUserTimeout.availability().available(), TcpUserTimeout.availability().toString());
        TcpProvider p = new TcpProvider();
        try (SocketChannel plain = SocketChannel.open(); SocketChannel ch = SocketChannel.open()) {
            p.configure(ch);
            assertEquals(TcpSettings.DEFAULT_USER_TIMEOUT, TcpOptionReader.userTimeout(ch));
            assertEquals(0, TcpOptionReader.userTimeout(plain));
        }
        p.activate(settings(0, 0, 3_500));
        try (SocketChannel ch = SocketChannel.open()) {
            p.configure(ch);
            assertEquals(3_500, TcpOptionReader.userTimeout(ch));
        }
        p.activate(settings(0, 0, 0));
        try (SocketChannel ch = SocketChannel.open()) {
            p.configure(ch);
            assertEquals(0, TcpOptionReader.userTimeout(ch));
        }
        String described = p.settings().stream().filter(s -> s.name().equals("jofi.tcp.userTimeout")).findFirst()
                .orElseThrow().description();
        assertTrue(described.contains("Here: available"), described);
    }
}
