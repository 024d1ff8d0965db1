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
            assertFalse(doorbell.await(0), "nothing rung yet");
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
        assertTrue(doorbell.await(LONG_WAIT)); // accepted and drained
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
}
