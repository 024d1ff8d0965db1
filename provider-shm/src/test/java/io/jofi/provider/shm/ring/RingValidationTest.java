package io.jofi.provider.shm.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every value the consumer reads from shared memory is validated: each corruption is one
 * distinct negative result ({@link MpscRing#FAILED}), the ring stays failed, the header says
 * FAILED; stalled claims are resolved by {@link SenderLiveness} only.
 */
class RingValidationTest {

    static final int CAPACITY = 4096;
    static final int RING_OFFSET = RegionDescriptor.headerLength(0);
    static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    final ByteBuffer memory = ByteBuffer.allocateDirect(RING_OFFSET + CAPACITY).order(ByteOrder.LITTLE_ENDIAN);
    final MpscRing ring = new MpscRing(memory, RING_OFFSET, CAPACITY);
    final List<Integer> types = new ArrayList<>();
    final RecordHandler collect = (type, sender, aux, buffer, offset, length) -> {
        types.add(type);
        return RecordHandler.CONTINUE;
    };

    int sendPublished(int type) {
        int index = ring.claim(type, 0, 0, 8);
        ring.publish(index);
        return index;
    }

    void assertFailed(String why) {
        assertEquals(MpscRing.FAILED, ring.read(collect, 10));
        assertTrue(ring.isFailed());
        assertEquals(why, ring.failure());
        assertEquals(RegionDescriptor.STATE_FAILED, memory.getInt(RegionDescriptor.STATE_OFFSET));
        assertEquals(MpscRing.FAILED, ring.read(collect, 10), "failed for good");
        // read reported it; a consumer kept awake by a failed ring spun for ever (docs/SHM-LAYOUT.md "Bad input, faults, security")
        assertTrue(ring.prepareToSleep(), "a failed ring lets its consumer sleep");
        assertFalse(ring.hasRecord(), "nothing to read from a failed ring");
    }

    /** docs/SHM-LAYOUT.md "Bad input, faults, security": garbage at the head of an empty ring is no record and must not keep the consumer awake. */
    @Test
    void garbageAtTheHeadOfAnEmptyRingIsNoRecord() {
        ring.buffer().putInt(0, 4711);
        ring.buffer().putInt(RingDescriptor.TYPE_OFFSET, 1);
        assertFalse(ring.hasRecord());
        assertTrue(ring.prepareToSleep(), "nothing claimed: the consumer may sleep");
        ring.awake();
        assertEquals(0, ring.read(collect, 10), "and nothing is read");
    }

    @Test
    void tailBehindTheHead() {
        memory.putLong(RegionDescriptor.TAIL_OFFSET, -8);
        assertFailed("tail outside [head, head + capacity]");
    }

    @Test
    void tailBeyondOneCapacity() {
        memory.putLong(RegionDescriptor.TAIL_OFFSET, CAPACITY + 8);
        assertFailed("tail outside [head, head + capacity]");
    }

    @Test
    void tailNotAligned() {
        memory.putLong(RegionDescriptor.TAIL_OFFSET, 12);
        assertEquals(MpscRing.FAILED, ring.claim(1, 0, 0, 8), "a producer never writes at a misaligned tail");
        assertFailed("tail not a multiple of 8");
    }

    @Test
    void lengthTooSmall() {
        int index = sendPublished(1);
        ring.buffer().putInt(index, 4);
        assertFailed("record length out of bounds");
    }

    @Test
    void lengthBeyondTheEndOfTheRing() {
        int index = sendPublished(1);
        ring.buffer().putInt(index, CAPACITY + 8);
        assertFailed("record length out of bounds");
    }

    @Test
    void lengthBeyondTheTail() {
        int index = sendPublished(1);
        ring.buffer().putInt(index, 1024);
        assertFailed("record beyond the tail");
    }

    @Test
    void negativeType() {
        int index = sendPublished(1);
        ring.buffer().putInt(index + RingDescriptor.TYPE_OFFSET, -5);
        assertFailed("negative record type");
    }

    @Test
    void userRecordShorterThanItsHeader() {
        int index = sendPublished(1);
        ring.buffer().putInt(index, 8);
        assertFailed("record shorter than its header");
    }

    @Test
    void handlerDeclaresThePayloadCorrupt() {
        sendPublished(1);
        sendPublished(2);
        assertEquals(MpscRing.FAILED, ring.read((t, s, a, b, o, l) -> RecordHandler.CORRUPT, 10));
        assertEquals("record payload corrupt", ring.failure());
        assertEquals(24, ring.head(), "the corrupt record was consumed, the next one not");
    }

    @Test
    void handlerAnswersNonsense() {
        sendPublished(1);
        assertEquals(MpscRing.FAILED, ring.read((t, s, a, b, o, l) -> 77, 10));
        assertEquals("record handler answered an unknown action", ring.failure());
    }

    @Test
    void handlerAbortLeavesTheRecordForTheNextRead() {
        sendPublished(1);
        sendPublished(2);
        assertEquals(0, ring.read((t, s, a, b, o, l) -> RecordHandler.ABORT, 10));
        assertEquals(1, ring.read((t, s, a, b, o, l) -> RecordHandler.BREAK, 10));
        assertEquals(1, ring.read(collect, 10));
        assertEquals(List.of(2), types);
    }

    @Test
    void handlerExceptionKeepsEarlierRecordsConsumed() {
        sendPublished(1);
        sendPublished(2);
        int[] calls = {0};
        RuntimeException boom = new RuntimeException("boom");
        try {
            ring.read((t, s, a, b, o, l) -> {
                if (calls[0]++ == 1) {
                    throw boom;
                }
                return RecordHandler.CONTINUE;
            }, 10);
        } catch (RuntimeException e) {
            assertEquals(boom, e);
        }
        assertEquals(24, ring.head());
        assertEquals(1, ring.read(collect, 10));
        assertEquals(List.of(2), types);
    }

    @Test
    void stalledClaimOfADeadSenderIsSkipped() {
        ring.stallTimeoutNanos(0);
        List<Integer> asked = new ArrayList<>();
        ring.senderLiveness(sender -> {
            asked.add(sender);
            return asked.size() > 1 ? false : true; // alive the first time, dead the second
        });
        ring.claim(1, 42, 0, 100); // claimed, never published
        sendPublished(2);
        assertEquals(0, ring.read(collect, 10), "stall starts");
        assertEquals(0, ring.read(collect, 10), "sender alive: wait");
        assertEquals(1, ring.read(collect, 10), "sender dead: skipped");
        assertEquals(List.of(42, 42), asked);
        assertEquals(List.of(2), types);
        assertEquals(1, ring.abandonedClaims());
        assertEquals(ring.tail(), ring.head());
    }

    @Test
    void stalledClaimIsNotSkippedBeforeTheTimeout() {
        ring.stallTimeoutNanos(Long.MAX_VALUE);
        ring.senderLiveness(sender -> false);
        ring.claim(1, 42, 0, 100);
        sendPublished(2);
        for (int i = 0; i < 5; i++) {
            assertEquals(0, ring.read(collect, 10));
        }
        assertEquals(0, ring.abandonedClaims());
    }

    @Test
    void unmarkedClaimBeforeAPublishedRecordIsSkippedOnlyWhenASenderDied() {
        ring.stallTimeoutNanos(0);
        boolean[] someoneDied = {false};
        List<Integer> asked = new ArrayList<>();
        ring.senderLiveness(sender -> {
            asked.add(sender);
            return !someoneDied[0];
        });
        // A producer CASed the tail (32 bytes) and died before writing anything.
        LONG.setVolatile(memory, RegionDescriptor.TAIL_OFFSET, 32L);
        assertEquals(0, ring.read(collect, 10));
        assertEquals(0, ring.read(collect, 10), "nothing visible beyond the gap: wait without asking");
        assertEquals(List.of(), asked);
        sendPublished(2);
        assertEquals(0, ring.read(collect, 10), "the record behind seen once: looked at again before anyone is asked");
        assertEquals(List.of(), asked);
        assertEquals(0, ring.read(collect, 10), "asked: all alive");
        someoneDied[0] = true;
        assertEquals(1, ring.read(collect, 10));
        assertEquals(List.of(RingDescriptor.SENDER_UNKNOWN, RingDescriptor.SENDER_UNKNOWN), asked);
        assertEquals(List.of(2), types);
    }

    @Test
    void unmarkedClaimWithItsHeaderStoredIsSkippedWholeOnceItsSenderIsDead() {
        ring.stallTimeoutNanos(0);
        List<Integer> asked = new ArrayList<>();
        boolean[] dead = {false};
        ring.senderLiveness(sender -> {
            asked.add(sender);
            return !dead[0];
        });
        // A producer CASed the tail for a 100-byte payload, stored type and sender, died before the length.
        LONG.setVolatile(memory, RegionDescriptor.TAIL_OFFSET, (long) RingDescriptor.alignedLength(116));
        ring.buffer().putInt(RingDescriptor.TYPE_OFFSET, 1);
        ring.buffer().putInt(RingDescriptor.SENDER_OFFSET, 4711);
        sendPublished(2);
        sendPublished(3);
        for (int i = 0; i < 3; i++) {
            assertEquals(0, ring.read(collect, 10), "alive or not yet asked: waited for");
        }
        assertEquals(List.of(4711), asked, "the sender its header names is asked, after two looks");
        dead[0] = true;
        assertEquals(2, ring.read(collect, 10), "the whole claim skipped, not its first 8 bytes");
        assertEquals(List.of(2, 3), types);
        assertEquals(1, ring.abandonedClaims());
        assertFalse(ring.isFailed());
        assertEquals(ring.tail(), ring.head());
    }

    @Test
    void unmarkedClaimThatWrapsIsSkippedToTheEndOfTheRingAndAtItsStart() {
        ring.stallTimeoutNanos(0);
        ring.senderLiveness(sender -> false);
        // fill up to 64 bytes before the end, then consume: the next claim of 80 bytes wraps
        int records = 0;
        while (ring.tail() < CAPACITY - 64) {
            int index = ring.claim(1, 0, 0, CAPACITY - 64 - (int) ring.tail() >= 96 ? 64 : CAPACITY - 64 - (int) ring.tail() - 16);
            ring.publish(index);
            records++;
        }
        assertEquals(records, ring.read(collect, 1000));
        types.clear();
        // the dying producer: CAS for 64 bytes of padding plus an 80-byte record at 0, nothing stored
        LONG.setVolatile(memory, RegionDescriptor.TAIL_OFFSET, (long) CAPACITY + 80);
        sendPublished(2);
        int n = 0;
        for (int i = 0; i < 20 && n == 0; i++) {
            n = ring.read(collect, 10);
        }
        assertEquals(1, n, "the padding part and the record part skipped");
        assertEquals(List.of(2), types);
        assertEquals(2, ring.abandonedClaims(), "two unmarked stretches: to the end, and at the start");
        assertEquals(ring.tail(), ring.head());
    }

    @Test
    void theNextRecordSeenByItsTypeAloneStartsFourBytesEarlier() {
        ring.stallTimeoutNanos(0);
        ring.senderLiveness(sender -> false);
        // a dead 32-byte claim, then a 24-byte claim whose producer has stored only its type so far
        LONG.setVolatile(memory, RegionDescriptor.TAIL_OFFSET, 56L);
        ring.buffer().putInt(32 + RingDescriptor.TYPE_OFFSET, 5);
        for (int i = 0; i < 3; i++) {
            assertEquals(0, ring.read(collect, 10));
        }
        assertEquals(1, ring.abandonedClaims(), "the dead claim skipped up to the record being written");
        assertEquals(32, ring.head());
        ring.buffer().putInt(32 + RingDescriptor.SENDER_OFFSET, 9);
        ring.buffer().putInt(32, 24); // published
        assertEquals(1, ring.read(collect, 10));
        assertEquals(List.of(5), types);
    }

    @Test
    void stalledClaimWithCorruptLengthFails() {
        ring.stallTimeoutNanos(0);
        ring.senderLiveness(sender -> false);
        int index = ring.claim(1, 42, 0, 8);
        ring.buffer().putInt(index, -4);
        assertEquals(0, ring.read(collect, 10));
        assertFailed("claimed record length out of bounds");
    }

    @Test
    void stalledClaimBeyondTheTailFails() {
        ring.stallTimeoutNanos(0);
        ring.senderLiveness(sender -> false);
        int index = ring.claim(1, 42, 0, 8);
        ring.buffer().putInt(index, -2000);
        assertEquals(0, ring.read(collect, 10));
        assertFailed("claimed record beyond the tail");
    }

    @Test
    void producerRefusesACorruptHead() {
        memory.putLong(RegionDescriptor.HEAD_OFFSET, 1 << 20); // head beyond the tail
        assertEquals(MpscRing.FAILED, ring.claim(1, 0, 0, 8));
        memory.putLong(RegionDescriptor.HEAD_OFFSET, -(1 << 20)); // tail a mile ahead: never "room"
        assertEquals(MpscRing.FULL, ring.claim(1, 0, 0, 8));
        assertEquals(0, ring.tail(), "nothing claimed");
    }

    @Test
    void paddingRecordAtWrapCoversTheRest() {
        // Fill to 4000 bytes, consume, then a 200-byte record cannot fit in the last 96.
        for (int i = 0; i < 8; i++) {
            ring.publish(ring.claim(1, 0, 0, 484)); // 500 -> 504 aligned
        }
        assertEquals(8, ring.read(collect, 10));
        assertEquals(4032, ring.head());
        int index = ring.claim(3, 0, 0, 184);
        assertEquals(0, index, "wrapped to the start");
        assertEquals(64, ring.buffer().getInt(4032), "padding length");
        assertEquals(RingDescriptor.TYPE_PADDING, ring.buffer().getInt(4032 + 4));
        ring.publish(index);
        assertEquals(1, ring.read(collect, 10));
        assertEquals(4096 + 200, ring.head());
    }

    @Test
    void mappingRingMemoryChecksItsArguments() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new MpscRing(ByteBuffer.allocate(RING_OFFSET + CAPACITY), RING_OFFSET, CAPACITY));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new MpscRing(memory, RING_OFFSET, 3000));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new MpscRing(memory, RING_OFFSET + 128, CAPACITY));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new MpscRing(memory, 64, CAPACITY));
    }
}
