package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.WaitObj;
import io.jofi.WaitObject;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The FD's raise stands down when a reader took what it raises for, and loses nothing doing so:
 * the interleaving is made by hand through the queue's readiness test, which the raise calls
 * with the FD's lock held. (A read right after a publish leaving the FD readable with nothing
 * unread: {@code UtilCounterTest.aReadRacingTheIncrementsFdRaiseLeavesTheFdSilent}.)
 */
@Timeout(30)
class WaitSupportFdRaiseTest {

    /**
     * A second producer that publishes while the first one's raise has the flag up leaves the
     * raise to it (it sees the flag up); the first raise's look had read the queue before that
     * publish and found it read. Lowering the flag without a second look would leave the second
     * entry unread behind a silent FD: a lost wake-up.
     */
    @Test
    void aPublishWhileTheFlagIsUpIsNotLostWhenTheRaiseStandsDown() throws Exception {
        WaitSupport ws = WaitSupport.open(WaitObj.FD, null);
        AtomicInteger looks = new AtomicInteger();
        boolean[] entry = {false}; // the first producer's entry: read already
        ws.attach(arg -> {
            if (looks.incrementAndGet() > 1) {
                return entry[0];
            }
            Thread second = new Thread(() -> {
                entry[0] = true;
                ws.notifyReady(); // sees the flag up: leaves the raise to the first producer
            }, "fd-raise-second-producer");
            second.start();
            try {
                second.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return false; // this look read the queue before the second publish
        });
        SelectableChannel fd = ((WaitObject.Fd) ws.exportWait()).channel();
        try (Selector selector = Selector.open()) {
            fd.configureBlocking(false);
            fd.register(selector, SelectionKey.OP_READ);
            ws.notifyReady(); // the first producer
            assertEquals(2, looks.get(), "the raise looked again after lowering the flag");
            assertTrue(selector.selectNow() > 0, "an entry is unread and the FD is silent: a lost wake-up");
        } finally {
            ws.close();
        }
    }
}
