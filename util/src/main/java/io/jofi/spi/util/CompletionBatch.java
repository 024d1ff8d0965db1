package io.jofi.spi.util;

import java.nio.ByteBuffer;

/**
 * Successful completions one provider thread writes into one completion queue during a
 * progress pass, held back and then published together by {@link #flush()}: one atomic claim
 * of positions, one depth mark and one wake for the whole batch, where writing each with
 * {@link UtilCompletionQueue#complete} costs each of them per completion (the reading side
 * already takes a batch with one head update and one credit return).
 *
 * <p>Rules (the writer keeps the order its completions would have had unbatched):
 * <ul>
 * <li>Only completions into room the writer {@link UtilCompletionQueue#reserve reserved}.</li>
 * <li>The writer flushes before it writes anything else into that CQ (an error entry, an
 *     unsolicited entry) and before its call returns to the application: a staged completion
 *     is invisible to readers until then. {@link #complete} flushes by itself when the batch
 *     is full or names another CQ.</li>
 * <li>Counter increments that belong to staged completions are staged too ({@link #count}),
 *     so that a counter never runs ahead of the entries it counts.</li>
 * <li>One thread at a time (the owner's lock or progress thread). Nothing is allocated
 *     after construction.</li>
 * </ul>
 */
public final class CompletionBatch {
    private final Object[] context;
    private final long[] flags;
    private final long[] len;
    private final ByteBuffer[] buf;
    private final int[] bufOffset;
    private final long[] data;
    private final long[] tag;
    private final long[] srcAddr;
    private int size;
    private UtilCompletionQueue cq;
    private UtilCounter counter;
    private int counts;

    /** @param capacity completions staged before {@link #complete} publishes them by itself, at least 1 */
    public CompletionBatch(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity + " < 1");
        }
        context = new Object[capacity];
        flags = new long[capacity];
        len = new long[capacity];
        buf = new ByteBuffer[capacity];
        bufOffset = new int[capacity];
        data = new long[capacity];
        tag = new long[capacity];
        srcAddr = new long[capacity];
    }

    /**
     * Stages a successful completion for {@code queue}, into room reserved there; the
     * arguments are {@link UtilCompletionQueue#complete}'s.
     */
    public void complete(UtilCompletionQueue queue, Object ctx, long fl, long length, ByteBuffer b, int off, long d,
                         long t, long src) {
        if (size == context.length || (cq != queue && size > 0)) {
            flush();
        }
        cq = queue;
        int i = size++;
        context[i] = ctx;
        flags[i] = fl;
        len[i] = length;
        buf[i] = b;
        bufOffset[i] = off;
        data[i] = d;
        tag[i] = t;
        srcAddr[i] = src;
    }

    /** Stages one success count on {@code c}, applied after the staged completions are published. */
    public void count(UtilCounter c) {
        if (counter != c && counts > 0) {
            flush();
        }
        counter = c;
        counts++;
    }

    /** Whether nothing is staged. */
    public boolean isEmpty() {
        return size == 0 && counts == 0;
    }

    /** Publishes what is staged (completions first, then the counts) and forgets it. */
    public void flush() {
        if (size > 0) {
            cq.completeBatch(this, size);
            for (int i = 0; i < size; i++) {
                context[i] = null; // nothing of the application's stays referenced here
                buf[i] = null;
            }
            size = 0;
        }
        if (counts > 0) {
            UtilCounter c = counter;
            int n = counts;
            counts = 0;
            for (int i = 0; i < n; i++) {
                c.increment();
            }
        }
        counter = null;
    }

    // ---- what CompletionRing.writeBatch copies (package-private: the ring reads the staged arrays)

    Object context(int i) {
        return context[i];
    }

    long flags(int i) {
        return flags[i];
    }

    long len(int i) {
        return len[i];
    }

    ByteBuffer buf(int i) {
        return buf[i];
    }

    int bufOffset(int i) {
        return bufOffset[i];
    }

    long data(int i) {
        return data[i];
    }

    long tag(int i) {
        return tag[i];
    }

    long srcAddr(int i) {
        return srcAddr[i];
    }
}
