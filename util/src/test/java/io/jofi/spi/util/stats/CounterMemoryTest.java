package io.jofi.spi.util.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * {@link CounterMemory}: on this JVM (HotSpot 17, {@code jdk.unsupported} present) counters
 * take the unchecked path, and it writes exactly their word — what the view handle, the
 * counters file's readers and the neighbouring records see.
 */
class CounterMemoryTest {

    @Test
    void countersUpdateTheirOwnWordByAddress() {
        assertTrue(CounterMemory.AVAILABLE, "raw access works on this JVM");
        ByteBuffer values = ByteBuffer.allocateDirect(3 * StatsFileDescriptor.VALUE_LENGTH).order(ByteOrder.nativeOrder());
        StatsCounter c = new StatsCounter(values, StatsFileDescriptor.VALUE_LENGTH, -1, "middle");
        assertTrue(CounterMemory.address(values, StatsFileDescriptor.VALUE_LENGTH) != 0, "the counter has an address");
        c.increment();
        c.add(41);
        assertEquals(42, c.get());
        assertEquals(42, values.getLong(StatsFileDescriptor.VALUE_LENGTH), "the buffer sees the raw store");
        c.max(40);
        assertEquals(42, c.get(), "a lower mark changes nothing");
        c.max(100);
        c.maxShared(99);
        assertEquals(100, c.get());
        c.maxShared(101);
        assertEquals(101, c.get());
        for (int i = 0; i < values.capacity(); i += Long.BYTES) {
            if (i != StatsFileDescriptor.VALUE_LENGTH) {
                assertEquals(0, values.getLong(i), "byte " + i + " is not the counter's");
            }
        }
    }

    @Test
    void aWordOutsideTheBufferIsRefused() {
        ByteBuffer values = ByteBuffer.allocateDirect(64);
        assertThrows(IndexOutOfBoundsException.class, () -> CounterMemory.address(values, 60));
        assertThrows(IndexOutOfBoundsException.class, () -> CounterMemory.address(values, -8));
        assertThrows(IndexOutOfBoundsException.class, () -> CounterMemory.address(values, 4), "misaligned");
        assertEquals(0, CounterMemory.address(ByteBuffer.allocate(64), 0), "a heap buffer keeps the view handle");
    }
}
