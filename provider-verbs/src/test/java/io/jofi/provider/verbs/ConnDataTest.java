package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** R14 over rdma_cm: the connection data's length travels with it, padding never shows. */
class ConnDataTest {
    @Test
    void aPaddedFrameReadsBackExactlyTheBytesWritten() {
        ByteBuffer wire = ByteBuffer.allocate(56); // rdma_cm delivers 56 bytes, zero-padded
        byte[] data = {1, 2, 3, 0, 0};
        assertEquals(6, ConnData.write(data, wire, 0));
        assertArrayEquals(data, ConnData.read(wire, 0, 56));
    }

    @Test
    void noDataIsALengthByteOfZeroAndReadsAsEmpty() {
        ByteBuffer wire = ByteBuffer.allocate(56);
        assertEquals(1, ConnData.write(null, wire, 0));
        assertEquals(0, ConnData.read(wire, 0, 56).length);
        assertEquals(0, ConnData.read(wire, 0, 0).length, "no private data at all");
    }

    @Test
    void theLargestPayloadFitsAndOneMoreIsRefused() {
        ByteBuffer wire = ByteBuffer.allocate(ConnData.MAX_FRAME);
        byte[] max = new byte[ConnData.MAX_DATA];
        max[ConnData.MAX_DATA - 1] = 42;
        assertEquals(ConnData.MAX_FRAME, ConnData.write(max, wire, 0));
        assertArrayEquals(max, ConnData.read(wire, 0, ConnData.MAX_FRAME));
        assertThrows(IllegalArgumentException.class, () -> ConnData.write(new byte[ConnData.MAX_DATA + 1], wire, 0));
    }

    @Test
    void aLengthBeyondWhatArrivedIsNotTrusted() {
        ByteBuffer wire = ByteBuffer.allocate(8);
        wire.put(0, (byte) 20);
        assertEquals(0, ConnData.read(wire, 0, 8).length);
    }

    @Test
    void framesWorkAtAnOffset() {
        ByteBuffer wire = ByteBuffer.allocate(64);
        ConnData.write(new byte[] {7, 7}, wire, 5);
        assertArrayEquals(new byte[] {7, 7}, ConnData.read(wire, 5, 59));
    }
}
