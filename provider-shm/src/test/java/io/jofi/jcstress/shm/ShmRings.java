package io.jofi.jcstress.shm;

import io.jofi.provider.shm.ring.MpscRing;
import io.jofi.provider.shm.ring.RecordHandler;
import io.jofi.provider.shm.ring.RegionDescriptor;
import io.jofi.provider.shm.ring.RingDescriptor;
import java.nio.ByteBuffer;

/** Helpers of the shm ring's jcstress tests: a small ring on a direct buffer, send, read. */
final class ShmRings {

    static final int CAPACITY = RegionDescriptor.MIN_RING_CAPACITY;

    private ShmRings() {
    }

    static MpscRing ring() {
        int ringOffset = RegionDescriptor.headerLength(0);
        return new MpscRing(ByteBuffer.allocateDirect(ringOffset + CAPACITY), ringOffset, CAPACITY);
    }

    /** Claims, writes {@code value} twice (head and tail of a 64-byte payload), publishes. */
    static int send(MpscRing ring, int sender, long value) {
        int index = ring.claim(1, sender, 0, 64);
        if (index < 0) {
            return index;
        }
        ByteBuffer buffer = ring.buffer();
        buffer.putLong(index + RingDescriptor.HEADER_LENGTH, value);
        buffer.putLong(index + RingDescriptor.HEADER_LENGTH + 56, value);
        return ring.publish(index) ? 1 : 0;
    }

    /** Sums what it reads; -1000 marks a torn record (head and tail of the payload differ). */
    static final class Summer implements RecordHandler {
        long sum;
        int count;

        @Override
        public int onRecord(int type, int sender, int aux, ByteBuffer buffer, int offset, int length) {
            long first = buffer.getLong(offset);
            long last = buffer.getLong(offset + 56);
            sum += first == last && length == 64 ? first : -1000;
            count++;
            return CONTINUE;
        }
    }
}
