package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static io.jofi.provider.tcp.TcpTestBed.awaitEvent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Endpoint;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.spi.util.UtilEndpoint;
import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.StatsCounter;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A tcp MSG endpoint's connection counters: connections made on both ends, the
 * read pause of a connection whose unexpected limits are full (once per pause, not per
 * retry), the partial writes of a message the peer does not take, a connection lost when the
 * peer goes.
 */
@Timeout(60)
class TcpCountersTest {
    private static final int LIMIT = TcpSettings.DEFAULT_UNEXPECTED_MESSAGES;

    static long value(Endpoint ep, String name) {
        CounterGroup g = ((UtilEndpoint) ep).counters();
        return g.counters().stream().filter(c -> c.label().equals(g.owner() + ": " + name)).findFirst()
                .map(StatsCounter::get).orElseThrow(() -> new AssertionError("no counter " + name + " in " + g.counters()));
    }

    /**
     * What {@code jofi stat} reads names each end of a MSG pair by its local and peer address,
     * the two mirrored (published when the connection is made; before, labels were fixed when
     * the endpoint was opened and named no address).
     */
    @org.junit.jupiter.api.Test
    void bothEndsOfAConnectionPublishTheirLocalAndPeerAddress() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null)) {
            java.nio.file.Path file = io.jofi.spi.util.stats.StatsFile.process().path();
            assertTrue(file != null, "statistics are on by default: this JVM has a counters file");
            java.util.Map<String, String> described = io.jofi.spi.util.stats.StatsFileReader.read(file).descriptions();
            String client = described.get(((UtilEndpoint) bed.client).counters().owner());
            String server = described.get(((UtilEndpoint) bed.server).counters().owner());
            java.util.regex.Pattern ends = java.util.regex.Pattern.compile("local (127\\.0\\.0\\.1:\\d+) peer (127\\.0\\.0\\.1:\\d+)");
            java.util.regex.Matcher c = ends.matcher(String.valueOf(client));
            java.util.regex.Matcher s = ends.matcher(String.valueOf(server));
            assertTrue(c.matches() && s.matches(), () -> "client: " + client + ", server: " + server + " in " + described);
            assertEquals(c.group(1), s.group(2), "the client's local address is the server's peer");
            assertEquals(c.group(2), s.group(1), "the server's local address is the client's peer");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aFullUnexpectedLimitPausesReadingOnceAndAClosedPeerIsALostConnection(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode).connect(null, null)) {
            assertEquals(1, value(bed.client, "connections made"));
            assertEquals(1, value(bed.server, "connections made"));
            Msg msg = new Msg().buffer(ByteBuffer.allocate(0), null);
            for (int i = 0; i <= LIMIT; i++) {
                assertEquals(0, bed.client.sendMsg(msg, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION));
            }
            for (int i = 0; i < LIMIT; i++) {
                awaitCompletion(bed.clientCq); // the first LIMIT are buffered; the last waits: reading paused
            }
            assertEquals(1, value(bed.server, "read pauses"));
            ByteBuffer rx = ByteBuffer.allocate(8);
            for (int i = 0; i <= LIMIT; i++) {
                assertEquals(0, bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, i));
            }
            for (int i = 0; i <= LIMIT; i++) {
                awaitCompletion(bed.serverCq);
            }
            awaitCompletion(bed.clientCq);
            assertEquals(1, value(bed.server, "read pauses"), "one pause, however often a resume looked");
            assertEquals(0, value(bed.server, "connections lost"));
            bed.client.close();
            bed.client = null;
            awaitEvent(bed.serverEq, Fi.FI_SHUTDOWN);
            assertEquals(1, value(bed.server, "connections lost"));
            assertEquals(0, value(bed.server, "connects refused"));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aMessageThePeerDoesNotTakeIsWrittenInParts(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode).connect(null, null)) {
            int size = 32 << 20; // beyond the unexpected bytes (4 MiB) and any socket buffer
            ByteBuffer big = ByteBuffer.allocateDirect(size);
            assertEquals(0, bed.client.send(big, null, Fi.FI_ADDR_UNSPEC, "big"));
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (value(bed.client, "partial writes") == 0 || value(bed.server, "read pauses") == 0) {
                bed.serverCq.read(new io.jofi.CqEntry[0], 0); // MANUAL: moves both ends
                bed.clientCq.read(new io.jofi.CqEntry[0], 0);
                assertTrue(System.nanoTime() < deadline, "no partial write or read pause seen");
                Thread.sleep(1);
            }
            ByteBuffer rx = ByteBuffer.allocateDirect(size);
            assertEquals(0, bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx"));
            assertEquals(size, awaitCompletion(bed.serverCq).len());
            awaitCompletion(bed.clientCq);
            assertEquals(1, value(bed.server, "read pauses"));
            assertTrue(value(bed.client, "partial writes") >= 1);
        }
    }
}
