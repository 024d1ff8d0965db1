package io.jofi.tools.ft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * fabtests' out-of-band socket on a real loopback connection: the client, once connected, waits a
 * second before it goes on (fabtests' ft_init_oob sleeps there), which is what keeps a MSG client's
 * fabric connect from reaching a server that opens its listener only after the out-of-band accept.
 * Without the pause, ./jofi ft fi_multi_ep -e msg against fabtests' server and fi_unexpected_msg -e msg
 * JOFI to JOFI were refused (ECONNREFUSED) on a loaded host.
 */
@Timeout(20)
class OobChannelTest {
    @Test
    void theClientWaitsASecondAfterConnectingAsFabtestsDoes() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[]> accepted = CompletableFuture.supplyAsync(() -> {
                try (Socket s = server.accept()) {
                    return s.getInputStream().readNBytes(1);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            FtOptions opts = new FtOptions();
            opts.dstAddr = "127.0.0.1";
            opts.oobPort = Integer.toString(server.getLocalPort());
            opts.timeoutSeconds = 10;
            long start = System.nanoTime();
            try (OobChannel client = OobChannel.open(opts)) {
                long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(waitedMs >= 1000, "open returned after " + waitedMs + " ms");
                client.send(new byte[] {7});
            }
            assertArrayEquals(new byte[] {7}, accepted.get(10, TimeUnit.SECONDS));
        }
    }
}
