package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CqEntry;
import io.jofi.Fi;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/SHM-LAYOUT.md "Blocking waits across processes": a receiver in MANUAL progress that only polls ({@code cq.read}, never a
 * blocking read) accepts no doorbell connection; more new senders than the socket's listen
 * backlog (50 in Java) must still send without blocking — before the fix the 52nd sender's
 * first {@code send} blocked for ever in the doorbell's {@code connect}. Every send is bounded
 * (run on a helper thread, awaited at most 5 s), every message arrives. (That a consumer
 * which later sleeps is still woken by producers whose connect found its listen queue full is
 * {@code DoorbellTest.aFullListenQueueNeverBlocksAProducerAndLosesNoWakeup}.)
 */
@Timeout(120)
class ShmDoorbellBacklogTest {
    private static final int SENDERS = 64;

    @Test
    void manyNewSendersToAPollingManualReceiverNeverBlock() throws Exception {
        Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmbacklog-");
        List<ShmTestBed> senders = new ArrayList<>();
        ExecutorService sendThread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "backlog-sender");
            t.setDaemon(true); // a send blocked in connect must not keep the JVM alive
            return t;
        });
        try (ShmTestBed receiver = new ShmTestBed(dir, Progress.MANUAL)) {
            byte[] to = receiver.ep.getName();
            ByteBuffer[] in = new ByteBuffer[SENDERS];
            for (int i = 0; i < SENDERS; i++) {
                in[i] = ByteBuffer.allocateDirect(8);
                int k = i;
                receiver.post(() -> receiver.ep.recv(in[k], null, Fi.FI_ADDR_UNSPEC, "r" + k), "recv " + k);
            }
            for (int i = 0; i < SENDERS; i++) {
                ShmTestBed s = new ShmTestBed(dir, Progress.MANUAL);
                senders.add(s);
                long addr = s.insert(to);
                ByteBuffer out = ByteBuffer.allocateDirect(8).putLong(0, i);
                int k = i;
                long start = System.nanoTime();
                Future<Integer> send = sendThread.submit(() -> s.ep.send(out, null, addr, "s" + k));
                int rc;
                try {
                    rc = send.get(5, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    fail("the send of new sender #" + (i + 1) + " blocked (> 5 s) while the receiver only polls");
                    return;
                }
                assertEquals(0, rc, "send of sender #" + (i + 1));
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(ms < 5_000, "send #" + (i + 1) + " took " + ms + " ms");
                s.completion(s.txCq, "send of sender #" + (i + 1));
                // the receiver only polls: one non-blocking read now and then
                receiver.rxCq.read(new CqEntry[0], 0);
            }
            boolean[] seen = new boolean[SENDERS];
            for (int n = 0; n < SENDERS; n++) {
                CqEntry e = receiver.completion(receiver.rxCq, "message " + n + " of " + SENDERS);
                String ctx = (String) e.context();
                long value = in[Integer.parseInt(ctx.substring(1))].getLong(0);
                assertTrue(value >= 0 && value < SENDERS && !seen[(int) value], "message " + value + " once");
                seen[(int) value] = true;
            }
        } finally {
            sendThread.shutdownNow();
            for (ShmTestBed s : senders) {
                s.close();
            }
            ShmCrossProcessTest.deleteTree(dir);
        }
    }
}
