package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.CqEntry;
import io.jofi.Progress;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Bad input from shared memory (docs/SHM-LAYOUT.md "Bad input, faults, security"): a writer that publishes well-formed ring records
 * whose endpoint-protocol payload is random (random kinds, lengths, offsets, senders, tokens)
 * must not make the receiving endpoint throw, allocate without bound or stop serving: after
 * thousands of such records a real peer's messages still arrive. Both progress modes' code
 * path is the same step; AUTO is used so a throw would kill the progress thread.
 */
@Timeout(60)
class ShmHostilePeerTest {
    @Test
    void randomRecordsDoNotBreakTheEndpoint() throws Exception {
        Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmhostile-");
        try (ShmTestBed victim = new ShmTestBed(dir, Progress.AUTO); ShmTestBed friend = new ShmTestBed(dir, Progress.AUTO)) {
            String name = victim.name().substring(ShmNames.SCHEME.length());
            Random random = new Random(42);
            try (RingLink hostile = RingLink.map(dir, name)) {
                for (int i = 0; i < 20_000; i++) {
                    int n = ShmRecordDescriptor.HEADER + random.nextInt(200);
                    int at = ShmTestBed.claimInto(hostile, n, i);
                    ByteBuffer b = hostile.buffer();
                    for (int k = 0; k < n; k += 4) {
                        b.putInt(at + k, random.nextInt());
                    }
                    // half of them look like a real sender's, so they reach the protocol's checks
                    if (random.nextBoolean()) {
                        b.putInt(at + ShmRecordDescriptor.KIND_FLAGS, (1 + random.nextInt(8)) | (random.nextInt() & ~0xFF));
                        b.putLong(at + ShmRecordDescriptor.SENDER_PID, 1 + random.nextInt(5));
                        b.putLong(at + ShmRecordDescriptor.SENDER_SEQ, ((long) (1 + random.nextInt(3)) << 32) | (1 + random.nextInt(3)));
                        b.putLong(at + ShmRecordDescriptor.C, random.nextInt(1 << 20));
                        b.putLong(at + ShmRecordDescriptor.D, random.nextInt(1 << 20));
                    }
                    hostile.publish(at);
                }
            }
            long to = friend.insert(victim.ep.getName());
            ByteBuffer in = ByteBuffer.allocateDirect(64);
            victim.post(() -> victim.ep.recv(in, null, io.jofi.Fi.FI_ADDR_UNSPEC, "r"), "recv");
            friend.post(() -> friend.ep.send(ShmCrossProcessTest.pattern(64, 3), null, to, "s"), "send");
            // random MSG records may have left unexpected messages: take receives until ours
            long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
            CqEntry e;
            while (true) {
                e = victim.completion(victim.rxCq, "a receive after the hostile records");
                if (e.len() == 64 && in.get(0) == 3 && in.get(63) == (byte) (3 + 63)) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the friend's message did not arrive");
                }
                victim.post(() -> victim.ep.recv(in, null, io.jofi.Fi.FI_ADDR_UNSPEC, "r"), "recv again");
            }
            assertEquals("r", e.context());
            friend.completion(friend.txCq, "the friend's send");
        } finally {
            ShmCrossProcessTest.deleteTree(dir);
        }
    }
}
