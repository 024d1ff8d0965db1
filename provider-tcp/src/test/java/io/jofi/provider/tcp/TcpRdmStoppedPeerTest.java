package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.Progress;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A stopped RDM peer (provider-tcp/README.md "Failure model"): tcp MSG and RDM eager sends to a
 * peer stopped with {@code SIGSTOP} timed out, but an {@code FI_DELIVERY_COMPLETE} 64 KiB send —
 * a rendezvous: the request sent, then the wait for the peer's read-done — stayed pending for
 * ever. Now it fails with {@code ETIMEDOUT} after the progress timeout (1 s here), while a
 * rendezvous the running peer holds unexpected (no tagged receive posted) is waited for, as
 * libfabric waits, however long; and the next send's connect, which the stopped peer's kernel
 * takes but nobody answers, fails with {@code ETIMEDOUT} too (it waited for ever). The peer is a
 * real child JVM, stopped with {@code kill -STOP}.
 */
@Timeout(90)
class TcpRdmStoppedPeerTest {
    private static final String PROP = "jofi.tcp.progressTimeout";
    private static final int TIMEOUT_MS = 1500;

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aDeliveryCompleteSendToAStoppedPeerTimesOut(Progress mode) throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        Process child = new ProcessBuilder(java, "-Xmx64m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                StoppableRdmPeerChild.class.getName()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        System.setProperty(PROP, Integer.toString(TIMEOUT_MS));
        RxmOverTcpTest.Side a;
        try {
            a = new RxmOverTcpTest.Side(mode);
        } finally {
            System.clearProperty(PROP);
        }
        try (a) {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII));
            String name = out.readLine();
            assertTrue(name != null, "the child started");
            long peer = a.insert(HexFormat.of().parseHex(name));
            ByteBuffer big = ByteBuffer.allocateDirect(64 << 10);
            Msg m = new Msg().buffer(big, null).addr(peer).context("alive");
            assertEquals(0, a.ep.sendMsg(m, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION));
            assertEquals("alive", RxmOverTcpTest.await(a.txCq, a, a).context(), "the live peer read it");

            // rendezvous the running peer holds unexpected beyond its limits (100 000 bytes: the
            // first is read into a copy, the next wait for a receive): waited for, as libfabric does
            for (int i = 0; i < 3; i++) {
                assertEquals(0, a.ep.tsend(big, null, peer, 42, "unexpected-" + i));
            }
            int done = completionsFor(a, 2 * TIMEOUT_MS); // twice the timeout, as TcpStoppedPeerTest's wait
            assertTrue(done < 3, "the peer holds some unexpected: " + done + " of 3 completed");

            stop(child);
            long t0 = System.nanoTime();
            m.context("stopped");
            assertEquals(0, a.ep.sendMsg(m, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION));
            Map<Object, Integer> errors = new HashMap<>();
            for (int i = 0; i < 1 + 3 - done; i++) {
                CqErrEntry e = RxmOverTcpTest.awaitError(a.txCq, a, a);
                errors.put(e.context(), e.err());
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(Errno.ETIMEDOUT, errors.get("stopped"), "the send to the stopped peer: " + errors);
            assertEquals(1 + 3 - done, errors.size(), "the connection's end fails the held ones: " + errors);
            assertTrue(ms >= TIMEOUT_MS - 50 && ms < TIMEOUT_MS + 5_000, "timed out after " + ms + " ms");

            // the next send connects again: the stopped peer's kernel takes the socket, nobody
            // answers the connection request — bounded by the same timeout
            t0 = System.nanoTime();
            assertEquals(0, a.ep.send(ByteBuffer.allocate(8), null, peer, "reconnect"), "queued while connecting");
            CqErrEntry e = RxmOverTcpTest.awaitError(a.txCq, a, a);
            ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals("reconnect", e.context());
            assertEquals(Errno.ETIMEDOUT, e.err(), "the unanswered connect");
            assertTrue(ms >= TIMEOUT_MS - 50 && ms < TIMEOUT_MS + 5_000, "the connect timed out after " + ms + " ms");
        } finally {
            new ProcessBuilder("kill", "-CONT", Long.toString(child.pid())).start().waitFor();
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Drives {@code a} for {@code ms}: how many sends completed (an error entry fails the test). */
    private static int completionsFor(RxmOverTcpTest.Side a, long ms) {
        CqEntry[] one = {new CqEntry()};
        int done = 0;
        long end = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() - end < 0) {
            int rc = a.txCq.read(one, 1);
            assertTrue(rc == 1 || rc == -Errno.EAGAIN, "no error while the running peer holds them: " + rc);
            done += Math.max(rc, 0);
            a.rxCq.read(new CqEntry[0], 0);
            Thread.onSpinWait();
        }
        return done;
    }

    private static void stop(Process p) throws Exception {
        Process k = new ProcessBuilder("kill", "-STOP", Long.toString(p.pid())).start();
        assertEquals(0, k.waitFor(), "kill -STOP");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            String stat = new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/" + p.pid() + "/stat")),
                    StandardCharsets.US_ASCII);
            if (stat.substring(stat.lastIndexOf(')') + 2).startsWith("T")) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the child did not stop");
    }
}
