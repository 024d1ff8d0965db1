package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * provider-shm/README.md "Failure model": the unexpected budget counts each message's real cost (payload plus a
 * fixed per-entry overhead), so a stream of 0-byte messages to a receiver with no receive
 * posted is bounded by it: the receiver stops taking records from its ring, the ring fills,
 * the sender's queue fills and its posts answer {@code -EAGAIN}. Nothing is lost: once
 * receives are posted every message arrives. (Before, 0-byte messages cost nothing: the
 * receiver buffered ~800 k of them and ran out of heap.)
 */
@Timeout(60)
class ShmUnexpectedBudgetTest {
    private static final int BUDGET = 64 << 10;
    /** Far more than the ring and the sender's queue hold: reaching it means no push-back. */
    private static final int CEILING = 60_000;

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void zeroByteMessagesAreBoundedByTheBudgetAndNoneIsLost(Progress progress) throws Exception {
        Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmbudget-");
        try (ShmTestBed a = new ShmTestBed(dir, progress);
             ShmTestBed b = new ShmTestBed(new ShmProvider().directory(dir).unexpectedBytes(BUDGET), progress)) {
            long toB = a.insert(b.ep.getName());
            ShmEndpoint rx = (ShmEndpoint) b.ep;
            ByteBuffer empty = ByteBuffer.allocateDirect(0);
            CqEntry[] one = {new CqEntry()};
            CqEntry[] none = new CqEntry[0];
            int sent = 0;
            int txDone = 0;
            int refusedInARow = 0;
            int maxBuffered = 0;
            long deadline = System.nanoTime() + 20_000_000_000L;
            // stream until the sender is pushed back (2000 refusals in a row with progress driven on both sides)
            while (sent < CEILING && refusedInARow < 2000) {
                int rc = a.ep.send(empty, null, toB, null);
                if (rc == 0) {
                    sent++;
                    refusedInARow = 0;
                } else if (rc == -Errno.EAGAIN) {
                    refusedInARow++;
                } else {
                    fail("send returned " + rc);
                }
                while (a.txCq.read(one, 1) == 1) {
                    txDone++;
                }
                b.rxCq.read(none, 0); // b's progress: drains its ring while the budget allows
                maxBuffered = Math.max(maxBuffered, ShmTestHooks.unexpectedCount(rx));
                assertTrue(System.nanoTime() < deadline, "streaming within 20 s (" + sent + " sent)");
            }
            int bound = BUDGET / ShmReceiver.ENTRY_OVERHEAD + 1;
            assertTrue(maxBuffered <= bound, "the receiver buffered " + maxBuffered + " 0-byte messages with a budget of "
                    + BUDGET + " bytes (at most " + bound + ")");
            assertTrue(sent < CEILING, "the sender was pushed back (-EAGAIN): it posted " + sent);
            // every message arrives once receives are posted
            ByteBuffer in = ByteBuffer.allocateDirect(8);
            int received = 0;
            deadline = System.nanoTime() + 20_000_000_000L;
            while (received < sent) {
                int rc = b.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, null);
                if (rc != 0 && rc != -Errno.EAGAIN) {
                    fail("recv returned " + rc);
                }
                while (b.rxCq.read(one, 1) == 1) {
                    assertEquals(0, one[0].len());
                    received++;
                }
                while (a.txCq.read(one, 1) == 1) {
                    txDone++;
                }
                assertTrue(System.nanoTime() < deadline, "all " + sent + " messages within 20 s (" + received + ")");
            }
            assertEquals(sent, received, "every message arrived");
            while (txDone < sent && System.nanoTime() < deadline) {
                while (a.txCq.read(one, 1) == 1) {
                    txDone++;
                }
                b.rxCq.read(none, 0);
            }
            assertEquals(sent, txDone, "every send completed");
            assertEquals(0, ShmTestHooks.unexpectedCount(rx));
        } finally {
            ShmCrossProcessTest.deleteTree(dir);
        }
    }
}
