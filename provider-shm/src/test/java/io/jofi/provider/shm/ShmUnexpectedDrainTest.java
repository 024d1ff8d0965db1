package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Unexpected messages (provider-shm/README.md "Endpoints and the protocol"): taking a matched message out of a long unexpected list costs O(1). A
 * receiver with no receive posted buffers N small messages, then drains them with one receive
 * each; the same is done with 4N. Linear cost makes the second drain about 4 times as long,
 * the former removal from the front of an array list made it about 16 times (1.06 M messages
 * drained at ~330/s). The assertion is on the ratio, not on an absolute time.
 */
@Timeout(120)
class ShmUnexpectedDrainTest {
    private static final int N = 40_000;

    @Test
    void drainingALongUnexpectedListIsLinear() throws Exception {
        Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmdrain-");
        try (ShmTestBed a = new ShmTestBed(dir, Progress.MANUAL); ShmTestBed b = new ShmTestBed(dir, Progress.MANUAL)) {
            long toB = a.insert(b.ep.getName());
            fillAndDrain(a, b, toB, N / 8); // warm-up (JIT)
            long t1 = fillAndDrain(a, b, toB, N);
            long t4 = fillAndDrain(a, b, toB, 4 * N);
            System.out.println("drain " + N + ": " + t1 / 1_000_000 + " ms, " + 4 * N + ": " + t4 / 1_000_000 + " ms");
            // linear: t4 ~ 4 t1; quadratic: t4 ~ 16 t1. Slack for GC and a shared machine.
            assertTrue(t4 < 8 * t1 + 250_000_000L, "draining " + 4 * N + " unexpected messages took " + t4 / 1_000_000
                    + " ms, " + N + " took " + t1 / 1_000_000 + " ms: not linear");
        } finally {
            ShmCrossProcessTest.deleteTree(dir);
        }
    }

    /** Sends {@code n} 8-byte messages to b (no receive posted), waits until b buffered all, then drains them; the drain's nanos. */
    private static long fillAndDrain(ShmTestBed a, ShmTestBed b, long toB, int n) {
        ByteBuffer out = ByteBuffer.allocateDirect(8);
        CqEntry[] one = {new CqEntry()};
        CqEntry[] none = new CqEntry[0];
        int sent = 0;
        int completed = 0;
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (completed < n) {
            if (sent < n) {
                out.putInt(0, sent);
                int rc = a.ep.send(out, null, toB, null);
                if (rc == 0) {
                    sent++;
                } else if (rc != -Errno.EAGAIN) {
                    fail("send returned " + rc);
                }
            }
            int r = a.txCq.read(one, 1);
            if (r == 1) {
                completed++;
            } else if (r != -Errno.EAGAIN) {
                fail("tx read " + r);
            }
            b.rxCq.read(none, 0); // b's progress drains its ring into the unexpected list
            assertTrue(System.nanoTime() < deadline, "filling " + n + " messages within 60 s (" + completed + ")");
        }
        ShmEndpoint rx = (ShmEndpoint) b.ep;
        while (rx.hasRecord()) {
            b.rxCq.read(none, 0);
            assertTrue(System.nanoTime() < deadline, "b drained its ring");
        }
        ByteBuffer in = ByteBuffer.allocateDirect(8);
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            int rc = b.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, null);
            if (rc != 0) {
                fail("recv " + i + " returned " + rc);
            }
            if (b.rxCq.read(one, 1) != 1) {
                fail("receive " + i + " did not complete at once from the unexpected list");
            }
            if (in.getInt(0) != i) {
                fail("message " + i + " arrived out of order: " + in.getInt(0));
            }
        }
        long took = System.nanoTime() - start;
        assertEquals(-Errno.EAGAIN, b.rxCq.read(one, 1), "nothing left over");
        assertFalse(rx.hasRecord());
        return took;
    }
}
