package io.jofi.provider.verbs;

import java.nio.ByteBuffer;

/**
 * Connection data on the wire of rdma_cm: rdma_cm pads private data (an IB CM REQ always
 * carries 56 bytes), so the length travels explicitly: byte 0 is the length {@code n}, bytes
 * {@code 1..n} the application's data (R14: {@code payloadLength()} is exactly what the peer
 * passed, never padded).
 *
 * <pre>
 *  0        1                 1+n
 *  +--------+-----------------+---- padding by rdma_cm ----
 *  |   n    | data (n bytes)  |
 *  +--------+-----------------+
 * </pre>
 */
final class ConnData {
    /** The largest application payload: 56 bytes of an RC connect request minus the length byte. */
    static final int MAX_DATA = 55;
    /** Bytes a framed payload occupies at most. */
    static final int MAX_FRAME = MAX_DATA + 1;

    private ConnData() {
    }

    /**
     * Writes the frame of {@code data} ({@code null} = none) at {@code at} of {@code out}.
     *
     * @return the frame length ({@code 1 + data.length})
     * @throws IllegalArgumentException when {@code data} is longer than {@link #MAX_DATA}
     */
    static int write(byte[] data, ByteBuffer out, int at) {
        int n = data == null ? 0 : data.length;
        if (n > MAX_DATA) {
            throw new IllegalArgumentException("connection data of " + n + " bytes exceeds the " + MAX_DATA
                    + " bytes rdma_cm carries");
        }
        out.put(at, (byte) n);
        for (int i = 0; i < n; i++) {
            out.put(at + 1 + i, data[i]);
        }
        return 1 + n;
    }

    /**
     * Reads a frame from the {@code available} bytes rdma_cm delivered at {@code at} of {@code in}.
     *
     * @return the application's data (empty when none, or when the frame is malformed: a
     *         length beyond what arrived, as from a peer that does not frame)
     */
    static byte[] read(ByteBuffer in, int at, int available) {
        if (available <= 0) {
            return new byte[0];
        }
        int n = in.get(at) & 0xFF;
        if (n > MAX_DATA || 1 + n > available) {
            return new byte[0];
        }
        byte[] data = new byte[n];
        for (int i = 0; i < n; i++) {
            data[i] = in.get(at + 1 + i);
        }
        return data;
    }
}
