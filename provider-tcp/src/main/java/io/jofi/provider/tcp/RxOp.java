package io.jofi.provider.tcp;

import java.nio.ByteBuffer;

/**
 * A pooled posted-receive descriptor: views of the caller's buffers that a message's payload
 * is read straight into (scattering read), trimmed to the message's length. Views are cached
 * per descriptor and reused while the caller posts the same buffers (no allocation in steady
 * state; the caller's position and limit are never touched).
 */
final class RxOp {
    final ByteBuffer[] views = new ByteBuffer[TcpProvider.IOV_LIMIT];
    private final ByteBuffer[] sources = new ByteBuffer[TcpProvider.IOV_LIMIT];
    int count;
    /** First view not filled completely. */
    int first;
    Object context;
    /** The first buffer the caller posted (the completion's {@code buf}) and its position. */
    ByteBuffer buf;
    int bufOffset;
    long capacity;
    boolean complete;
    /** The sender it accepts ({@code FI_DIRECTED_RECV}), or {@code Fi.FI_ADDR_UNSPEC} for any. */
    long src = io.jofi.Fi.FI_ADDR_UNSPEC;
    /** Whether it is a tagged receive, and its tag / ignore bits ({@code fi_tagged(3)}). */
    boolean tagged;
    long tag;
    long ignore;
    /** A multi-receive buffer ({@code FI_MULTI_RECV}): stays posted while room is left. */
    boolean multi;
    /** Multi-receive: bytes of the buffer used so far (from {@link #bufOffset}). */
    long used;
    /** Multi-receive: released when less than this is left ({@code FI_OPT_MIN_MULTI_RECV}). */
    long minFree;
    /** A part of a multi-receive buffer: the buffer it belongs to, or null. */
    RxOp parent;
    /** A part that is the last of its buffer: its completion carries {@code FI_MULTI_RECV}. */
    boolean releases;

    /** Whether this receive accepts a message from {@code from}, tagged or not, with {@code msgTag}. */
    boolean accepts(long from, boolean msgTagged, long msgTag) {
        if (tagged != msgTagged) {
            return false;
        }
        if (src != io.jofi.Fi.FI_ADDR_UNSPEC && src != from) {
            return false;
        }
        return !tagged || ((msgTag | ignore) == (tag | ignore));
    }

    /** Sets view {@code i} to {@code [position, limit)} of {@code src}. */
    void buffer(int i, ByteBuffer src) {
        ByteBuffer v;
        if (sources[i] == src) {
            v = views[i];
        } else {
            v = src.duplicate();
            sources[i] = src;
            views[i] = v;
        }
        v.limit(v.capacity()).position(src.position()).limit(src.limit());
    }

    /** Sets view {@code i} to {@code [index, index + length)} of {@code src} (absolute indexes). */
    void range(int i, ByteBuffer src, int index, int length) {
        ByteBuffer v;
        if (sources[i] == src) {
            v = views[i];
        } else {
            v = src.duplicate();
            sources[i] = src;
            views[i] = v;
        }
        v.limit(v.capacity()).position(index).limit(index + length);
    }

    /** Trims the views to {@code n} bytes in total (the part of a message that is placed). */
    void trimTo(long n) {
        long left = n;
        for (int i = 0; i < count; i++) {
            ByteBuffer v = views[i];
            int take = (int) Math.min(v.remaining(), left);
            v.limit(v.position() + take);
            left -= take;
        }
        first = 0;
    }

    /** Whether every view is full. */
    boolean advance() {
        while (first < count && !views[first].hasRemaining()) {
            first++;
        }
        return first == count;
    }

    /** Copies {@code src} (an unexpected message) into the views; returns the bytes placed. */
    long place(ByteBuffer src) {
        long placed = 0;
        int at = src.position();
        int end = src.limit();
        for (int i = 0; i < count && at < end; i++) {
            ByteBuffer v = views[i];
            int take = Math.min(v.remaining(), end - at);
            v.put(v.position(), src, at, take);
            at += take;
            placed += take;
        }
        return placed;
    }

    void reset() {
        context = null;
        buf = null;
        src = io.jofi.Fi.FI_ADDR_UNSPEC;
        tagged = false;
        tag = 0;
        ignore = 0;
        multi = false;
        used = 0;
        minFree = 0;
        parent = null;
        releases = false;
    }
}
