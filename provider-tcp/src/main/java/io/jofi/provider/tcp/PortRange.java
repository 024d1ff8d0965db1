package io.jofi.provider.tcp;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The ports a listener binds when its service is 0 ({@link TcpSettings#portLow} ..
 * {@link TcpSettings#portHigh}, as libfabric's {@code FI_TCP_PORT_LOW_RANGE} /
 * {@code FI_TCP_PORT_HIGH_RANGE}): a firewall can then open exactly that range.
 *
 * @param low  the lowest port, 1..65535; 0 for {@link #ANY}
 * @param high the highest port, at least {@code low}
 */
record PortRange(int low, int high) {
    /** No range: the kernel chooses an ephemeral port. */
    static final PortRange ANY = new PortRange(0, 0);

    /** The range of the settings; {@link #ANY} when {@code low} is 0 or the range is not valid. */
    static PortRange of(int low, int high) {
        if (low <= 0 || low > 65535) {
            return ANY;
        }
        int h = high <= 0 ? low : Math.min(65535, high);
        return h < low ? ANY : new PortRange(low, h);
    }

    boolean isAny() {
        return low == 0;
    }

    /**
     * Binds {@code s} to {@code address} and a free port of the range, trying each once from a
     * random start (as libfabric does, so that listeners opened together do not all race for
     * the lowest port).
     *
     * @throws BindException when every port of the range is taken (the last port's failure)
     * @throws IOException   any other socket failure
     */
    void bind(ServerSocketChannel s, InetAddress address, int backlog) throws IOException {
        int size = high - low + 1;
        int start = ThreadLocalRandom.current().nextInt(size);
        BindException last = null;
        for (int i = 0; i < size; i++) {
            int port = low + (start + i) % size;
            try {
                s.bind(new InetSocketAddress(address, port), backlog);
                return;
            } catch (BindException e) {
                last = e;
            }
        }
        throw new BindException("every port of " + low + ".." + high + " (jofi.tcp.portLow/portHigh) is taken: "
                + last.getMessage());
    }
}
