package io.jofi.spi.util;

import io.jofi.Fi;
import java.nio.ByteBuffer;

/**
 * One posted receive ({@code fi_recv}, {@code fi_trecv}, their {@code *msg} forms): the
 * application's buffers as absolute ranges, the context, what it accepts (tag and ignore
 * bits, the sender of {@code FI_DIRECTED_RECV}) and the state of a multi-receive buffer.
 * Pooled by its {@link ReceiveQueue} ({@link ReceiveQueue#newReceive()}): the provider fills
 * it ({@link #untagged}/{@link #tagged}, {@link #buffer}, {@link #multiReceive}) and posts it.
 *
 * <p>A receive that a message matched is where the provider puts the bytes: absolutely with
 * {@link #place} (the caller's positions and limits are never touched), or through
 * {@link #scatterViews} for a scattering channel read. A part of a multi-receive buffer is a
 * receive of its own whose single range is the part of the buffer the message gets.
 */
public final class PostedReceive {
    private static final ByteBuffer[] NO_VIEWS = new ByteBuffer[0];

    Object context;
    boolean tagged;
    long tag;
    long ignore;
    /** The sender it accepts ({@code FI_DIRECTED_RECV}), or {@code Fi.FI_ADDR_UNSPEC} for any. */
    long src = Fi.FI_ADDR_UNSPEC;
    /** Whether a successful completion is written (R2: {@code FI_COMPLETION}, or no selective completion). */
    boolean report;

    final ByteBuffer[] buffers;
    final int[] starts;
    final int[] lengths;
    int count;
    long capacity;
    /** The buffer the completion names and the index in it where the message starts. */
    ByteBuffer buf;
    int bufOffset;

    /** A multi-receive buffer ({@code FI_MULTI_RECV}): stays posted while room is left. */
    boolean multi;
    /** Multi-receive: released when less than this is left ({@code FI_OPT_MIN_MULTI_RECV}). */
    long minFree;
    /** Multi-receive: bytes given to parts so far. */
    long used;
    /** Multi-receive: parts being filled (their completions not yet written). */
    int inFlight;
    /** Multi-receive: no longer posted; the last completion of it carries {@code FI_MULTI_RECV}. */
    boolean released;
    /** A part: the multi-receive buffer it belongs to; else null. */
    PostedReceive parent;

    /** The queue it is on (null when none) and its links there; {@link #next} links the pool too. */
    PostedReceiveQueue list;
    PostedReceive prev;
    PostedReceive next;
    /** A receive that took an unexpected message still arriving: that message. */
    UnexpectedMessage waitsFor;

    /** What {@link #scatterViews} returns, filled per call. */
    private ByteBuffer[] views = NO_VIEWS;
    /** Views of its own, where its queue's shared one was in use: by segment, with their buffers. */
    private ByteBuffer[] ownViews = NO_VIEWS;
    private ByteBuffer[] ownSources = NO_VIEWS;
    /** Its queue's views by buffer (null for a receive of a provider's own, which keeps only its own). */
    ReceiveViews sharedViews;
    /** Times it went back to its pool: a shared view it took is free again once this moved on. */
    int recycled;

    /**
     * A receive of up to {@code maxSegments} buffers. Providers take pooled ones from their
     * {@link ReceiveQueue}; one of their own serves e.g. as the sink of RMA payloads.
     */
    public PostedReceive(int maxSegments) {
        this.buffers = new ByteBuffer[Math.max(1, maxSegments)];
        this.starts = new int[buffers.length];
        this.lengths = new int[buffers.length];
    }

    /**
     * An untagged receive.
     *
     * @param context the application's context
     * @param src     the sender it accepts ({@code FI_DIRECTED_RECV}), or
     *                {@code Fi.FI_ADDR_UNSPEC}; ignored unless the queue is directed
     * @param flags   the post's flags: {@code FI_COMPLETION} asks for a successful
     *                completion where the CQ is bound with {@code FI_SELECTIVE_COMPLETION}
     *                (R2; {@link ReceiveCompletion#bind})
     * @return this
     */
    public PostedReceive untagged(Object context, long src, long flags) {
        this.context = context;
        this.tagged = false;
        this.tag = 0;
        this.ignore = 0;
        this.src = src;
        this.report = (flags & Fi.FI_COMPLETION) != 0;
        return this;
    }

    /** A tagged receive of {@code tag} (bits set in {@code ignore} match anything); else as {@link #untagged}. */
    public PostedReceive tagged(Object context, long src, long tag, long ignore, long flags) {
        untagged(context, src, flags);
        this.tagged = true;
        this.tag = tag;
        this.ignore = ignore;
        return this;
    }

    /**
     * Adds {@code b}'s {@code [position, limit)} as the next range (the first names the
     * completion's {@code buf}). At most {@code maxSegments} (the provider checked the iov
     * count).
     */
    public PostedReceive buffer(ByteBuffer b) {
        return range(b, b.position(), b.remaining());
    }

    /** Adds {@code [start, start + length)} of {@code b} (absolute indexes) as the next range. */
    public PostedReceive range(ByteBuffer b, int start, int length) {
        if (count == 0) {
            buf = b;
            bufOffset = start;
        }
        buffers[count] = b;
        starts[count] = start;
        lengths[count] = length;
        count++;
        capacity += length;
        return this;
    }

    /**
     * Makes it a multi-receive buffer ({@code fi_msg(3)} {@code FI_MULTI_RECV}, untagged): it
     * takes one message after another into its next free bytes and is released once less
     * than {@code minFree} bytes ({@code FI_OPT_MIN_MULTI_RECV}) are left.
     */
    public PostedReceive multiReceive(long minFree) {
        this.multi = true;
        this.minFree = minFree;
        return this;
    }

    /**
     * The tag-match rule of {@code fi_tagged(3)}, the one every provider uses: a receive of
     * {@code tag} with {@code ignore} bits accepts a message tagged {@code msgTag} when they
     * agree on every bit not ignored.
     */
    public static boolean tagMatches(long tag, long ignore, long msgTag) {
        return ((tag ^ msgTag) & ~ignore) == 0;
    }

    /**
     * Empties a receive the provider owns itself (e.g. the sink an RMA payload is read into)
     * for its next use. Never for one taken from a {@link ReceiveQueue}: those go back with
     * {@link ReceiveQueue#recycle}.
     */
    public PostedReceive clear() {
        reset();
        return this;
    }

    /** Whether it accepts {@code m} (kind, tag; the sender only when {@code directed}). */
    boolean accepts(ArrivingMessage m, boolean directed) {
        if (tagged != m.tagged) {
            return false;
        }
        if (directed && src != Fi.FI_ADDR_UNSPEC && src != m.src) {
            return false;
        }
        return !tagged || tagMatches(tag, ignore, m.tag);
    }

    /**
     * Places {@code n} bytes of {@code in} from index {@code at} at byte {@code to} of this
     * receive's ranges (absolute: no position or limit changes); what does not fit is dropped.
     *
     * @return the bytes placed
     */
    public int place(long to, ByteBuffer in, int at, int n) {
        long skip = to;
        int done = 0;
        int want = (int) Math.max(0, Math.min(n, capacity - to));
        for (int i = 0; i < count && done < want; i++) {
            int len = lengths[i];
            if (skip >= len) {
                skip -= len;
                continue;
            }
            int take = (int) Math.min(len - skip, want - done);
            buffers[i].put(starts[i] + (int) skip, in, at + done, take);
            done += take;
            skip = 0;
        }
        return done;
    }

    /**
     * Views of the ranges, trimmed to the first {@code n} bytes, for a scattering read
     * ({@code ScatteringByteChannel.read(views, 0, segmentCount())}). A view is a duplicate of
     * the caller's buffer, made once and reused whenever the same buffer is posted again
     * (nothing allocated in steady state): the queue's view of that buffer, whichever pooled
     * receive carries it ({@link ReceiveViews}), or, while that one serves another receive or
     * an earlier segment of this one, a view this receive keeps for the segment.
     */
    public ByteBuffer[] scatterViews(long n) {
        if (views.length < buffers.length) {
            views = new ByteBuffer[buffers.length];
            ownViews = new ByteBuffer[buffers.length];
            ownSources = new ByteBuffer[buffers.length];
        }
        long left = n;
        for (int i = 0; i < count; i++) {
            ByteBuffer b = buffers[i];
            ByteBuffer v = null;
            if (ownSources[i] == b) {
                v = ownViews[i];
            } else if (sharedViews != null && !inEarlierSegment(b, i)) {
                v = sharedViews.viewFor(this, b);
            }
            if (v == null) {
                v = b.duplicate();
                ownSources[i] = b;
                ownViews[i] = v;
            }
            views[i] = v;
            int take = (int) Math.min(lengths[i], left);
            v.limit(v.capacity()).position(starts[i]).limit(starts[i] + take);
            left -= take;
        }
        return views;
    }

    private boolean inEarlierSegment(ByteBuffer b, int segment) {
        for (int j = 0; j < segment; j++) {
            if (buffers[j] == b) {
                return true;
            }
        }
        return false;
    }

    /** The application's context. */
    public Object context() {
        return context;
    }

    /** Whether it is a tagged receive. */
    public boolean isTagged() {
        return tagged;
    }

    /** Its tag (tagged receives). */
    public long tag() {
        return tag;
    }

    /** Its ignore bits (tagged receives). */
    public long ignore() {
        return ignore;
    }

    /** The sender it accepts, or {@code Fi.FI_ADDR_UNSPEC}. */
    public long src() {
        return src;
    }

    /** The bytes it can hold. */
    public long capacity() {
        return capacity;
    }

    /** Its number of ranges. */
    public int segmentCount() {
        return count;
    }

    /** The buffer of range {@code i}. */
    public ByteBuffer segment(int i) {
        return buffers[i];
    }

    /** The absolute start index of range {@code i} in {@link #segment(int)}. */
    public int segmentStart(int i) {
        return starts[i];
    }

    /** The length of range {@code i}. */
    public int segmentLength(int i) {
        return lengths[i];
    }

    /** Whether it is a multi-receive buffer (not a part of one). */
    public boolean isMultiReceive() {
        return multi;
    }

    /** The multi-receive buffer this receive is a part of, or null. */
    public PostedReceive parent() {
        return parent;
    }

    /** Gives a part {@code length} bytes of this buffer's ranges from byte {@link #used}. */
    void carve(PostedReceive part, long length) {
        long skip = used;
        long left = length;
        for (int i = 0; i < count && left > 0; i++) {
            int len = lengths[i];
            if (skip >= len) {
                skip -= len;
                continue;
            }
            int take = (int) Math.min(len - skip, left);
            part.range(buffers[i], starts[i] + (int) skip, take);
            left -= take;
            skip = 0;
        }
        if (part.count == 0) {
            // an empty part (a 0-byte message, or the buffer is full) still names where it would start
            part.buf = buf;
            part.bufOffset = (int) (bufOffset + used);
        }
        used += length;
    }

    void reset() {
        context = null;
        tagged = false;
        tag = 0;
        ignore = 0;
        src = Fi.FI_ADDR_UNSPEC;
        report = false;
        for (int i = 0; i < count; i++) {
            buffers[i] = null;
        }
        count = 0;
        capacity = 0;
        buf = null;
        bufOffset = 0;
        multi = false;
        minFree = 0;
        used = 0;
        inFlight = 0;
        released = false;
        parent = null;
        list = null;
        prev = null;
        next = null;
        waitsFor = null;
    }
}
