package io.jofi.provider.tcp;

import java.io.IOException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;

/**
 * TCP keepalive on a connection ({@link TcpSettings#keepAliveIdle}): {@code SO_KEEPALIVE} and,
 * where the platform has them, {@code TCP_KEEPIDLE}/{@code TCP_KEEPINTERVAL}/{@code TCP_KEEPCOUNT}
 * (libfabric's tcp provider sets 5 s / 2 s / 2 probes). The three are looked up by name among
 * the channel's supported options, so the bundle does not import {@code jdk.net} (not every OSGi
 * framework exports it) and a platform without them keeps the kernel's timing.
 */
final class KeepAlive {
    private KeepAlive() {
    }

    /** Turns keepalive on with these timings ({@code idleSeconds} 0: leaves it off). */
    static void apply(SocketChannel ch, int idleSeconds, int intervalSeconds, int count) throws IOException {
        if (idleSeconds <= 0) {
            return;
        }
        ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        for (SocketOption<?> o : ch.supportedOptions()) {
            switch (o.name()) {
                case "TCP_KEEPIDLE" -> set(ch, o, idleSeconds);
                case "TCP_KEEPINTERVAL" -> set(ch, o, intervalSeconds);
                case "TCP_KEEPCOUNT" -> set(ch, o, count);
                default -> {
                    // not a keepalive timing
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static void set(SocketChannel ch, SocketOption<?> o, int value) throws IOException {
        if (o.type() == Integer.class) {
            ch.setOption((SocketOption<Integer>) o, value);
        }
    }

    /** The channel's keepalive idle time in seconds, or -1 when keepalive is off or the platform does not tell (tests). */
    @SuppressWarnings("unchecked")
    static int idleSeconds(SocketChannel ch) throws IOException {
        if (!ch.getOption(StandardSocketOptions.SO_KEEPALIVE)) {
            return -1;
        }
        for (SocketOption<?> o : ch.supportedOptions()) {
            if (o.name().equals("TCP_KEEPIDLE") && o.type() == Integer.class) {
                return ch.getOption((SocketOption<Integer>) o);
            }
        }
        return -1;
    }
}
