package io.jofi.provider.tcp;

import java.nio.ByteBuffer;

/**
 * Where the payload of an RMA frame lands on a tcp connection: views of registered regions
 * (the target of a write), of the local buffers of a read, or of an atomic's operand buffer,
 * that the {@link TcpReceiver} reads straight into. A view is a duplicate of its buffer, made
 * once and reused while the same buffer comes again (no allocation in steady state; the
 * buffer's own position and limit are never touched).
 */
final class TcpPayloadViews {
    private final ByteBuffer[] views = new ByteBuffer[TcpProvider.IOV_LIMIT];
    private final ByteBuffer[] sources = new ByteBuffer[TcpProvider.IOV_LIMIT];
    /** Views in use. */
    private int count;
    /** Their bytes in total. */
    private long capacity;

    /** The views; {@link #count} of them in use. */
    ByteBuffer[] views() {
        return views;
    }

    /** Views in use. */
    int count() {
        return count;
    }

    /** The first {@code n} views are in use. */
    void count(int n) {
        count = n;
    }

    /** Their bytes in total. */
    long capacity() {
        return capacity;
    }

    /** Sets their bytes in total. */
    void capacity(long bytes) {
        capacity = bytes;
    }

    /** Sets view {@code i} to {@code [position, limit)} of {@code src}. */
    void buffer(int i, ByteBuffer src) {
        view(i, src).position(src.position()).limit(src.limit());
    }

    /** Sets view {@code i} to {@code [index, index + length)} of {@code src} (absolute indexes). */
    void range(int i, ByteBuffer src, int index, int length) {
        view(i, src).position(index).limit(index + length);
    }

    private ByteBuffer view(int i, ByteBuffer src) {
        ByteBuffer v;
        if (sources[i] == src) {
            v = views[i];
        } else {
            v = src.duplicate();
            sources[i] = src;
            views[i] = v;
        }
        return v.limit(v.capacity());
    }
}
