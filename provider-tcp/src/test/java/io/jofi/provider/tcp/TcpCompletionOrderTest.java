package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.Endpoint;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A read pass publishes its receive completions together (TcpReceiver's CompletionBatch); a
 * send completion that an ack read in the same pass brings must still come after the receive
 * completions of the frames before the ack, as unbatched.
 */
@Timeout(60)
class TcpCompletionOrderTest {

    @Test
    void aSendAckedInTheSameReadAsAMessageBeforeItCompletesAfterThatMessage() throws Exception {
        // two providers, MANUAL: each side progresses only when its own CQ is read
        try (TcpTestBed a = new TcpTestBed(Progress.MANUAL); TcpTestBed b = new TcpTestBed(Progress.MANUAL)) {
            Endpoint client = a.newClient();
            a.client = client;
            client.connect(b.pep.getName(), null);
            EqEntry req = TcpTestBed.awaitEvent(b.pepEq, Fi.FI_CONNREQ);
            Endpoint server = b.domain.endpoint(req.info(), "server");
            b.server = server;
            server.bind(b.serverEq, 0);
            server.bind(b.serverCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            server.enable();
            server.accept(null);
            TcpTestBed.awaitEvent(b.serverEq, Fi.FI_CONNECTED);
            TcpTestBed.awaitEvent(a.clientEq, Fi.FI_CONNECTED);

            assertEquals(0, client.recv(ByteBuffer.allocateDirect(64), null, 0, "recv m1"));
            assertEquals(0, server.recv(ByteBuffer.allocateDirect(64), null, 0, "recv s1"));
            // s1: complete only when the server has it (its ack)
            assertEquals(0, client.sendMsg(new Msg().buffer(ByteBuffer.allocateDirect(16), null).context("s1"),
                    Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION));
            // the server's m1 goes out before the server has read s1: on the wire, m1 then s1's ack
            assertEquals(0, server.send(ByteBuffer.allocateDirect(16), null, 0, "m1"));
            List<Object> serverSaw = awaitContexts(b.serverCq, 2); // m1 sent, s1 received (and acked)
            assertTrue(serverSaw.contains("recv s1") && serverSaw.contains("m1"), serverSaw.toString());
            Thread.sleep(100); // the ack reaches the client's socket, behind m1

            // one read pass of the client takes m1 and the ack
            assertEquals(List.of("recv m1", "s1"), awaitContexts(a.clientCq, 2));
        }
    }

    @Test
    void aRemoteWriteWithDataReadInTheSamePassAsAMessageBeforeItComesAfterThatMessage() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.MANUAL, Fi.FI_MSG | Fi.FI_RMA)) {
            bed.connect(null, null);
            ByteBuffer target = ByteBuffer.allocateDirect(64);
            MemoryRegion mr = bed.domain.register(target, Fi.FI_REMOTE_WRITE, 0, 0, 0, "mr");
            bed.closeLater.add(mr);
            assertEquals(0, bed.server.recv(ByteBuffer.allocateDirect(64), null, 0, "recv m1"));
            // both written at post (nothing queued ahead), m1 first; nobody reads the server's socket yet
            assertEquals(0, bed.client.send(ByteBuffer.allocateDirect(16), null, 0, "m1"));
            assertEquals(0, bed.client.writeData(ByteBuffer.allocateDirect(8), null, 0x1234L, Fi.FI_ADDR_UNSPEC,
                    mr.address(), mr.key(), "w1"));
            Thread.sleep(100);

            // the server's first read pass takes both: m1's completion, then the remote write's
            // (no context: FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA), which must not overtake it
            List<Object> order = awaitContexts(bed.serverCq, 2);
            assertEquals(java.util.Arrays.asList("recv m1", null), order);
        }
    }

    /** Reads {@code n} successful completions from {@code cq} (its reads drive its provider's progress), their contexts in CQ order. */
    private static List<Object> awaitContexts(CompletionQueue cq, int n) {
        List<Object> contexts = new ArrayList<>();
        CqEntry[] entries = {new CqEntry(), new CqEntry()};
        long deadline = System.currentTimeMillis() + TcpTestBed.TIMEOUT_MS;
        while (contexts.size() < n) {
            int rc = cq.read(entries, Math.min(entries.length, n - contexts.size()));
            if (rc > 0) {
                for (int i = 0; i < rc; i++) {
                    contexts.add(entries[i].context());
                }
                continue;
            }
            assertEquals(-Errno.EAGAIN, rc, "cq read");
            if (System.currentTimeMillis() > deadline) {
                fail("only " + contexts + " within " + TcpTestBed.TIMEOUT_MS + " ms");
            }
            Thread.onSpinWait();
        }
        return contexts;
    }
}
