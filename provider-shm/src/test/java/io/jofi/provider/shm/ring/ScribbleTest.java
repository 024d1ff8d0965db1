package io.jofi.provider.shm.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/SHM-LAYOUT.md "Bad input, faults, security": random bytes over a live region never make the
 * consumer (or a producer) throw, touch memory outside the ring, or loop forever; the
 * consumer ends by declaring the ring failed.
 */
class ScribbleTest {

    static final int CAPACITY = 4096;

    @TempDir
    Path dir;

    /** Checks that every record handed out lies inside the ring. */
    static RecordHandler boundsChecking(int capacity, Random random) {
        return (type, sender, aux, buffer, offset, length) -> {
            if (type <= 0 || length < 0 || offset < RingDescriptor.HEADER_LENGTH || offset + length > capacity
                    || buffer.capacity() != capacity) {
                throw new AssertionError("record outside the ring: type " + type + " offset " + offset
                        + " length " + length);
            }
            if (length > 0) {
                buffer.get(offset + length - 1); // touch its last byte
            }
            int pick = random.nextInt(16);
            return pick == 0 ? RecordHandler.BREAK : pick == 1 ? RecordHandler.ABORT : RecordHandler.CONTINUE;
        };
    }

    @Test
    void randomCorruptionOfRingAndCountersIsDetectedOrHarmless() {
        int failed = 0;
        for (int seed = 0; seed < 3000; seed++) {
            Random random = new Random(seed);
            int ringOffset = RegionDescriptor.headerLength(0);
            ByteBuffer memory = ByteBuffer.allocateDirect(ringOffset + CAPACITY);
            MpscRing ring = new MpscRing(memory, ringOffset, CAPACITY);
            ring.stallTimeoutNanos(0);
            ring.senderLiveness(sender -> random.nextBoolean());
            for (int i = random.nextInt(40); i > 0; i--) {
                int index = ring.claim(1 + random.nextInt(5), random.nextInt(4), 0, random.nextInt(200));
                if (index >= 0 && random.nextInt(8) != 0) {
                    ring.publish(index);
                }
            }
            for (int i = 1 + random.nextInt(6); i > 0; i--) {
                int offset = random.nextBoolean()
                        ? RegionDescriptor.SLEEPING_OFFSET + random.nextInt(3 * RegionDescriptor.PAD - 8)
                        : ringOffset + random.nextInt(CAPACITY - 8);
                memory.putLong(offset, random.nextInt(3) == 0 ? random.nextLong()
                        : random.nextInt(2 * CAPACITY) - CAPACITY);
            }
            RecordHandler handler = boundsChecking(CAPACITY, random);
            for (int round = 0; round < 20; round++) {
                int n = ring.read(handler, 1 + random.nextInt(64));
                assertTrue(n >= 0 || n == MpscRing.FAILED, "seed " + seed + ": read answered " + n);
                int index = ring.claim(1, 0, 0, random.nextInt(300));
                assertTrue(index == MpscRing.FULL || index == MpscRing.FAILED
                        || (index >= 0 && index < CAPACITY && index % RingDescriptor.ALIGNMENT == 0),
                        "seed " + seed + ": claim answered " + index);
                if (index >= 0) {
                    ring.publish(index);
                }
            }
            if (ring.isFailed()) {
                failed++;
            }
        }
        assertTrue(failed > 0, "some corruption must be detected");
    }

    @Test
    void hostileProcessScribblesOverALiveRegion() throws Exception {
        try (ShmRegion owner = ShmRegion.create(dir, "victim", new RegionSizes(CAPACITY, 64, 2));
             ShmRegion peer = ShmRegion.map(dir, "victim")) {
            MpscRing ring = owner.ring();
            ring.stallTimeoutNanos(TimeUnit.MILLISECONDS.toNanos(1));
            Random random = new Random(42);
            ring.senderLiveness(sender -> random.nextBoolean());
            AtomicReference<Throwable> producerError = new AtomicReference<>();
            Thread producer = new Thread(() -> {
                // An honest producer in this process keeps sending into the scribbled ring.
                MpscRing out = peer.ring();
                try {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ChildJvm.TIMEOUT_SECONDS);
                    while (!ring.isFailed() && System.nanoTime() < deadline) {
                        int index = out.claim(1, 1, 0, 40);
                        if (index >= 0) {
                            out.buffer().putLong(index + RingDescriptor.HEADER_LENGTH, 7);
                            out.publish(index);
                        } else {
                            Thread.yield();
                        }
                    }
                } catch (Throwable t) {
                    producerError.set(t);
                }
            }, "honest-producer");
            producer.start();
            try (ChildJvm scribbler = ChildJvm.start("scribble", dir.toString(), "victim", "7", "200000")) {
                scribbler.await("SCRIBBLING");
                RecordHandler handler = boundsChecking(CAPACITY, random);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ChildJvm.TIMEOUT_SECONDS);
                long records = 0;
                int result;
                while ((result = ring.read(handler, 64)) >= 0) {
                    records += result;
                    if (System.nanoTime() > deadline) {
                        fail("the consumer never declared the scribbled ring failed (" + records + " records)");
                    }
                }
                assertEquals(MpscRing.FAILED, result);
                assertTrue(ring.isFailed());
                assertTrue(ring.failure() != null && !ring.failure().isEmpty());
                scribbler.await("DONE");
                assertEquals(0, scribbler.awaitExit());
            } finally {
                producer.join(TimeUnit.SECONDS.toMillis(ChildJvm.TIMEOUT_SECONDS));
            }
            if (producerError.get() != null) {
                throw new AssertionError("the producer threw", producerError.get());
            }
        }
    }
}
