package io.jofi.provider.shm.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Errno;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The doorbell in one process: ring, timeout, local wakeup, close, gone consumer. */
class DoorbellTest {

    static final long LONG_WAIT = TimeUnit.SECONDS.toNanos(30);

    @TempDir
    Path dir;

    @Test
    void ringWakesAwaitAndManyRingsCountOnce() throws Exception {
        Path path = dir.resolve("jofi-x.bell");
        try (Doorbell doorbell = Doorbell.bind(path);
             DoorbellRinger ringer = DoorbellRinger.connect(path)) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(path)));
            assertTrue(doorbell.await(0), "a new producer's connection counts as a ring");
            assertFalse(doorbell.await(0), "nothing rung since");
            for (int i = 0; i < 1000; i++) {
                assertEquals(0, ringer.ring());
            }
            assertTrue(doorbell.await(LONG_WAIT));
            assertFalse(doorbell.await(TimeUnit.MILLISECONDS.toNanos(20)), "all drained: times out");
        }
        assertFalse(Files.exists(path), "close removes the socket file");
    }

    @Test
    void wakeupFromAnotherThreadEndsAwait() throws Exception {
        try (Doorbell doorbell = Doorbell.bind(dir.resolve("jofi-y.bell"))) {
            Thread waker = new Thread(() -> {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException ignored) {
                    // wake anyway
                }
                doorbell.wakeup();
            });
            waker.start();
            assertTrue(doorbell.await(LONG_WAIT));
            waker.join();
        }
    }

    @Test
    void wakeupBeforeAwaitIsNotLost() throws Exception {
        try (Doorbell doorbell = Doorbell.bind(dir.resolve("jofi-w.bell"))) {
            doorbell.wakeup();
            assertTrue(doorbell.await(LONG_WAIT), "the earlier wakeup ends this await");
            assertFalse(doorbell.await(TimeUnit.MILLISECONDS.toNanos(20)), "and only this one");
        }
    }

    @Test
    void closeEndsAwaitAndRingerLearnsTheConsumerIsGone() throws Exception {
        Path path = dir.resolve("jofi-z.bell");
        Doorbell doorbell = Doorbell.bind(path);
        DoorbellRinger ringer = DoorbellRinger.connect(path);
        assertEquals(0, ringer.ring());
        assertTrue(doorbell.await(LONG_WAIT)); // accepted (a ring of its own) ...
        while (doorbell.await(TimeUnit.MILLISECONDS.toNanos(20))) {
            // ... and its byte drained
        }
        Thread closer = new Thread(() -> {
            try {
                Thread.sleep(20);
                doorbell.close();
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        closer.start();
        assertFalse(doorbell.await(LONG_WAIT), "closed while waiting");
        closer.join();
        int result = 0;
        for (int i = 0; i < 100 && result == 0; i++) {
            result = ringer.ring(); // the first writes after the peer closed may still succeed
        }
        assertEquals(-Errno.ENOTCONN, result);
        ringer.close();
        assertThrows(IOException.class, () -> DoorbellRinger.connect(path));
    }

    /**
     * docs/SHM-LAYOUT.md "Blocking waits across processes": with the consumer's listen queue full (it has not accepted for a while)
     * a producer's connect does not block; the producer starts unconnected, its ring while the
     * queue is still full returns at once, and the consumer's next wait — which accepts the
     * queued connections — is ended by them (an accept counts as a ring), so no wake-up is lost.
     * Afterwards the unconnected producer connects at its next ring and rings normally.
     */
    @Test
    void aFullListenQueueNeverBlocksAProducerAndLosesNoWakeup() throws Exception {
        Path path = dir.resolve("jofi-q.bell");
        java.util.List<DoorbellRinger> ringers = new java.util.ArrayList<>();
        try (Doorbell doorbell = Doorbell.bind(path, 1)) {
            DoorbellRinger late = null;
            for (int i = 0; i < 8; i++) {
                long start = System.nanoTime();
                DoorbellRinger r = DoorbellRinger.connect(path); // blocked for ever before once the queue was full
                assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2), "connect #" + i + " returned promptly");
                ringers.add(r);
                if (!r.isConnected()) {
                    late = r;
                }
            }
            assertTrue(late != null, "the short queue filled up (some producer started unconnected)");
            long start = System.nanoTime();
            assertEquals(0, late.ring(), "ringing while the queue is full returns at once");
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2));
            assertTrue(doorbell.await(LONG_WAIT), "the queued connections end the consumer's wait");
            while (doorbell.await(TimeUnit.MILLISECONDS.toNanos(20))) {
                // accept whatever else is queued
            }
            assertEquals(0, late.ring(), "now it connects and rings");
            assertTrue(late.isConnected());
            assertTrue(doorbell.await(LONG_WAIT), "its ring arrives");
        } finally {
            for (DoorbellRinger r : ringers) {
                r.close();
            }
        }
    }
}
