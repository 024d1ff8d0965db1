package io.jofi.provider.shm.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Errno;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ring protocol on a direct buffer: claim, publish, read, wrap, full, abort, sleep flag. */
class MpscRingTest {

    static final int CAPACITY = 4096;
    static final int RING_OFFSET = RegionDescriptor.headerLength(0);

    final ByteBuffer memory = ByteBuffer.allocateDirect(RING_OFFSET + CAPACITY);
    final MpscRing ring = new MpscRing(memory, RING_OFFSET, CAPACITY);
    final List<long[]> seen = new ArrayList<>();
    final RecordHandler collect = (type, sender, aux, buffer, offset, length) -> {
        seen.add(new long[] {type, sender, aux, length, length >= 8 ? buffer.getLong(offset) : -1});
        return RecordHandler.CONTINUE;
    };

    int send(int type, int sender, long value, int payload) {
        int index = ring.claim(type, sender, 7, payload);
        if (index < 0) {
            return index;
        }
        if (payload >= 8) {
            ring.buffer().putLong(index + RingDescriptor.HEADER_LENGTH, value);
        }
        ring.publish(index);
        return index;
    }

    @Test
    void publishedRecordsAreReadInOrderWithTheirHeader() {
        assertEquals(0, send(5, 1, 11, 8));
        assertEquals(24, send(6, 2, 22, 16));
        assertEquals(2, ring.read(collect, 10));
        assertEquals(List.of(5L, 1L, 7L, 8L, 11L), List.of(box(seen.get(0))));
        assertEquals(List.of(6L, 2L, 7L, 16L, 22L), List.of(box(seen.get(1))));
        assertEquals(56, ring.head());
        assertEquals(0, ring.read(collect, 10));
    }

    @Test
    void unpublishedRecordStopsTheConsumer() {
        int index = ring.claim(5, 1, 0, 8);
        send(6, 2, 0, 8);
        assertEquals(0, ring.read(collect, 10));
        ring.publish(index);
        assertEquals(2, ring.read(collect, 10));
    }

    @Test
    void limitIsRespected() {
        for (int i = 0; i < 5; i++) {
            send(1, 0, i, 8);
        }
        assertEquals(2, ring.read(collect, 2));
        assertEquals(3, ring.read(collect, 10));
        assertEquals(-Errno.EINVAL, ring.read(collect, 0));
    }

    @Test
    void takenSpaceStaysUsedAndUnzeroedUntilReleased() {
        int payload = ring.maxPayloadLength(); // 512 bytes per record: 8 fill the ring
        for (int i = 0; i < 8; i++) {
            assertTrue(send(1, 0, i, payload) >= 0, "record " + i);
        }
        assertEquals(3, ring.take(collect, 3));
        assertEquals(2, ring.take(collect, 2)); // behind the first three, not again from the head
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), seen.stream().map(r -> r[4]).toList());
        assertEquals(0, ring.head());
        assertEquals(0L, memory.order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(RegionDescriptor.HEAD_OFFSET));
        assertEquals(MpscRing.FULL, ring.claim(1, 0, 0, 0), "taken space is not free before the release");
        assertEquals(payload + RingDescriptor.HEADER_LENGTH, ring.buffer().getInt(0), "taken record not zeroed yet");

        ring.releaseTaken();
        assertEquals(5 * 512, ring.head());
        assertEquals(5L * 512, memory.order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(RegionDescriptor.HEAD_OFFSET));
        for (int at = 0; at < 5 * 512; at += 8) {
            assertEquals(0L, ring.buffer().getLong(at), "zeroed at " + at);
        }
        assertEquals(3, ring.read(collect, 10));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L), seen.stream().map(r -> r[4]).toList());
        assertTrue(send(1, 0, 8, payload) >= 0);
    }

    @Test
    void fullRingRefusesUntilConsumed() {
        int payload = ring.maxPayloadLength(); // 496 + 16 = 512 bytes per record: 8 fit
        for (int i = 0; i < 8; i++) {
            assertTrue(send(1, 0, i, payload) >= 0, "record " + i);
        }
        assertEquals(MpscRing.FULL, ring.claim(1, 0, 0, payload));
        assertEquals(MpscRing.FULL, ring.claim(1, 0, 0, 0));
        assertEquals(1, ring.read(collect, 1));
        assertTrue(send(1, 0, 99, payload) >= 0);
    }

    @Test
    void wrapWritesPaddingAndConsumedSpaceIsZeroed() {
        // 3 records of 1000 bytes (aligned 1000), then one that does not fit before the end.
        for (int lap = 0; lap < 20; lap++) {
            for (int i = 0; i < 3; i++) {
                assertTrue(send(1, lap, i, 496) >= 0);
            }
            assertEquals(3, ring.read(collect, 10));
        }
        assertEquals(60, seen.size());
        for (int i = 0; i < 60; i++) {
            assertEquals(i / 3, seen.get(i)[1]);
            assertEquals(i % 3, seen.get(i)[4]);
        }
        for (int i = 0; i < CAPACITY; i++) {
            assertEquals(0, ring.buffer().get(i), "byte " + i + " not zeroed");
        }
    }

    @Test
    void badArgumentsAreRefused() {
        assertEquals(-Errno.EINVAL, ring.claim(0, 0, 0, 8));
        assertEquals(-Errno.EINVAL, ring.claim(-3, 0, 0, 8));
        assertEquals(-Errno.EMSGSIZE, ring.claim(1, 0, 0, ring.maxPayloadLength() + 1));
        assertEquals(-Errno.EMSGSIZE, ring.claim(1, 0, 0, -1));
        assertEquals(0, ring.tail());
    }

    @Test
    void abortedRecordIsSkipped() {
        int index = ring.claim(1, 0, 0, 8);
        send(2, 0, 5, 8);
        ring.abort(index);
        assertEquals(1, ring.read(collect, 10));
        assertEquals(2, seen.get(0)[0]);
    }

    @Test
    void publishReportsASleepingConsumer() {
        assertTrue(ring.prepareToSleep());
        assertTrue(ring.isConsumerSleeping());
        int index = ring.claim(1, 0, 0, 0);
        assertTrue(ring.publish(index));
        assertFalse(ring.prepareToSleep(), "a published record keeps the consumer awake");
        assertFalse(ring.isConsumerSleeping());
        ring.read(collect, 10);
        assertTrue(ring.prepareToSleep());
        ring.awake();
        assertFalse(ring.publish(ring.claim(1, 0, 0, 0)));
    }

    /**
     * The handshake is on the tail: a claim made before the consumer announced sleep, still
     * unpublished when it looks, lets it sleep only after its bounded look; the producer's publish
     * then reads the flag again and rings (a claim after the announcement rings by the flag it read
     * at the claim).
     */
    @Test
    void aClaimUnpublishedWhenTheConsumerSleepsRingsAtItsPublish() {
        int early = ring.claim(1, 0, 0, 8);
        assertTrue(ring.prepareToSleep(), "a claim never published: the consumer sleeps after its look");
        assertTrue(ring.publish(early), "the producer that claimed before the announcement rings at its publish");
        ring.awake();
        assertFalse(ring.prepareToSleep(), "the published record keeps the consumer awake");
        assertEquals(1, ring.read(collect, 10));
        assertTrue(ring.prepareToSleep());
        int late = ring.claim(1, 0, 0, 8);
        ring.awake(); // the flag the claim read decides: it rings even though the consumer woke meanwhile
        assertTrue(ring.publish(late), "a spurious ring is harmless; a lost one is not");
    }

    private static Long[] box(long[] values) {
        Long[] boxed = new Long[values.length];
        for (int i = 0; i < values.length; i++) {
            boxed[i] = values[i];
        }
        return boxed;
    }
}
