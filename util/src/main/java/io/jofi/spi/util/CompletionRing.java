package io.jofi.spi.util;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;

/*
 * Agrona-style padding: HotSpot lays out a superclass's fields before its subclass's, so a
 * chain of classes each holding 128 bytes of unused longs keeps head, tail and credits on
 * cache lines of their own (128 rather than 64 bytes because Intel's adjacent-line
 * prefetcher pulls cache lines in pairs). Without it every producer's getAndAdd on the tail
 * would invalidate the line the readers spin on for the head, and vice versa.
 */

/** Padding before the head: keeps it off the object header's line and whatever precedes the object. */
abstract class CompletionRingPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The consumer index: next position to read. Written by readers only, with CAS. */
abstract class CompletionRingHead extends CompletionRingPad0 {
    volatile long head;
}

/** Padding between the readers' head and the producers' tail. */
abstract class CompletionRingPad1 extends CompletionRingHead {
    long p16, p17, p18, p19, p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31;
}

/**
 * Where the producer index was: it lives in the CQ's "completions written" counter now
 * ({@link io.jofi.spi.util.stats.StatsCounter#claimNext()}, a value record of its own in the
 * counters file, 128 bytes apart from any other), so the padding here only keeps the head and
 * the credits apart.
 */
abstract class CompletionRingPad2 extends CompletionRingPad1 {
    long p32, p33, p34, p35, p36, p37, p38, p39, p40, p41, p42, p43, p44, p45, p46, p47;
}

/** Free room: taken by producers (reserve or unsolicited write), given back by readers. */
abstract class CompletionRingCredits extends CompletionRingPad2 {
    volatile long credits;
}

/** Padding after the credits: the read-mostly final fields that follow must not share their line. */
abstract class CompletionRingPad3 extends CompletionRingCredits {
    long p48, p49, p50, p51, p52, p53, p54, p55, p56, p57, p58, p59, p60, p61, p62, p63;
}

/**
 * The bounded multi-producer multi-consumer ring under {@link UtilCompletionQueue}: slots in
 * structure-of-arrays form, a Vyukov-style sequence number per slot, and a credit count that
 * keeps the ring from ever holding more than {@code capacity} completions (R6).
 *
 * <pre>
 *  slot s = position &amp; mask          capacity C = mask + 1 (a power of two)
 *
 *             +-----+-----+-----+-----+-----+-----+-----+-----+
 *  sequence   | p+1 | p+1 | p+1 |  p  |  p  |p-C+1|  p  |  p  |   long[]  (the protocol)
 *  context    | ctx | ctx | ctx |     |     | ... |     |     |   Object[]
 *  flags,len  |     |     |     |     |     |     |     |     |   long[], long[]
 *  buf,bufOff |     |     |     |     |     |     |     |     |   ByteBuffer[], int[]
 *  data,tag   |     |     |     |     |     |     |     |     |   long[], long[]
 *  srcAddr    |     |     |     |     |     |     |     |     |   long[]      (R10)
 *  error      |  F  |  F  |  T  |     |     |     |     |     |   boolean[]   (error slot marker)
 *  olen,err,provErrno,errData,errDataSize                          only meaningful where error = T
 *             +-----+-----+-----+-----+-----+-----+-----+-----+
 *                ^head                   ^tail
 *
 *  For the slot of position p, sequence[s] is
 *     p          free: the producer that claims p may write it
 *     p + 1      published: the completion of position p is readable
 *     p + C      released by the reader of p: free for position p + C
 * </pre>
 *
 * <b>Producer</b> (any thread, after taking a credit): {@code p = tail.getAndAdd(1)} (the tail is
 * the CQ's "completions written" counter, {@code StatsCounter.claimNext}); wait until
 * {@code sequence[s] == p} (see below); write the slot's fields with plain stores; publish
 * with a release store {@code sequence[s] = p + 1}.
 *
 * <p><b>Reader</b> (any thread): read {@code h = head}; count the consecutive slots from
 * {@code h} whose sequence is {@code pos + 1} (acquire loads), up to the count asked,
 * stopping before an error slot (R2: errors leave by {@link #readError} only); copy the
 * fields the format needs into the caller's entries; then one CAS {@code head: h -> h + n}
 * for the whole batch. When the CAS fails another reader took some of those slots and may
 * already have released and re-published them, so what was copied may be torn: the reader
 * retries and overwrites the caller's entries. When it succeeds nobody else can have
 * touched slots {@code h .. h+n-1} since their sequence was read, so the copy is exact.
 * The winner then releases each slot (nulls its references so that nothing leaks, then a
 * release store {@code sequence[s] = pos + C}) and only then returns the {@code n} credits.
 *
 * <p><b>Why credits.</b> A producer takes a credit before it claims a position, and a
 * credit comes back only after its slot was released, so at most {@code C} positions are
 * ever claimed and not yet released: the tail never laps the head and a producer's claim
 * finds its slot free. The one exception is two readers releasing out of order (the later
 * batch's reader returning its credits before the earlier batch's reader has released):
 * a producer may then find its slot still held for the few stores the other reader has left
 * to do, and spins for them. Taking a credit is a CAS loop, not {@code getAndAdd} with an
 * undo, because a failed take must be exact: for an unsolicited completion it means overrun,
 * and an undo window would let one producer's transient -1 push another into that fatal
 * state while room existed.
 *
 * <p>Nothing here allocates.
 */
final class CompletionRing extends CompletionRingPad3 {
    /** {@link #read} result: nothing published at the head. */
    static final int EMPTY = 0;
    /** {@link #read} result: an error completion is at the head (R2). */
    static final int ERROR_AT_HEAD = -1;

    /** Formats as ints so that the read loop switches on a constant field, not an enum map. */
    static final int FORMAT_CONTEXT = 1;
    static final int FORMAT_MSG = 2;
    static final int FORMAT_DATA = 3;
    static final int FORMAT_TAGGED = 4;

    private static final VarHandle HEAD;
    private static final VarHandle CREDITS;
    private static final VarHandle SEQUENCE = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(CompletionRingHead.class, "head", long.class);
            CREDITS = l.findVarHandle(CompletionRingCredits.class, "credits", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int capacity;
    private final int mask;
    private final int format;

    private final long[] sequence;
    private final Object[] context;
    private final long[] flags;
    private final long[] len;
    private final ByteBuffer[] buf;
    private final int[] bufOffset;
    private final long[] data;
    private final long[] tag;
    private final long[] srcAddr;
    private final boolean[] error;
    private final long[] olen;
    private final int[] err;
    private final int[] provErrno;
    private final byte[][] errData;
    private final int[] errDataSize;

    /** The producer index: the next position to claim (the CQ's "completions written"). */
    private final io.jofi.spi.util.stats.StatsCounter tail;

    /**
     * @param capacity a power of two
     * @param format   one of the {@code FORMAT_*} constants: which fields reads copy
     * @param tail     the producer index, at 0: a counter of its own, which producers claim
     *                 positions from with an atomic add ({@code StatsCounter.claimNext})
     */
    CompletionRing(int capacity, int format, io.jofi.spi.util.stats.StatsCounter tail) {
        if (capacity <= 0 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two: " + capacity);
        }
        this.capacity = capacity;
        this.tail = tail;
        this.mask = capacity - 1;
        this.format = format;
        this.sequence = new long[capacity];
        for (int i = 0; i < capacity; i++) {
            sequence[i] = i;
        }
        this.context = new Object[capacity];
        this.flags = new long[capacity];
        this.len = new long[capacity];
        this.buf = new ByteBuffer[capacity];
        this.bufOffset = new int[capacity];
        this.data = new long[capacity];
        this.tag = new long[capacity];
        this.srcAddr = new long[capacity];
        this.error = new boolean[capacity];
        this.olen = new long[capacity];
        this.err = new int[capacity];
        this.provErrno = new int[capacity];
        this.errData = new byte[capacity][];
        this.errDataSize = new int[capacity];
        CREDITS.setVolatile(this, (long) capacity);
    }

    int capacity() {
        return capacity;
    }

    // ------------------------------------------------------------------ credits

    /** Takes one unit of room; false when the ring (with its reservations) is full. */
    boolean tryTakeCredit() {
        long c = (long) CREDITS.getVolatile(this);
        while (c > 0) {
            long witness = (long) CREDITS.compareAndExchange(this, c, c - 1);
            if (witness == c) {
                return true;
            }
            c = witness;
        }
        return false;
    }

    /** Gives back room: a reservation whose post failed, or slots a reader released. */
    void returnCredits(int n) {
        CREDITS.getAndAdd(this, (long) n);
    }

    /** Free room now (for tests and diagnostics). */
    long credits() {
        return (long) CREDITS.getVolatile(this);
    }

    // ------------------------------------------------------------------ producers

    /**
     * Writes a successful completion into the next position; the caller holds a credit.
     */
    void write(Object ctx, long fl, long length, ByteBuffer b, int off, long d, long t, long src) {
        long p = tail.claimNext();
        int s = (int) p & mask;
        while ((long) SEQUENCE.getAcquire(sequence, s) != p) {
            Thread.onSpinWait(); // normally free at once: see the class comment
        }
        context[s] = ctx;
        flags[s] = fl;
        len[s] = length;
        buf[s] = b;
        bufOffset[s] = off;
        data[s] = d;
        tag[s] = t;
        srcAddr[s] = src;
        error[s] = false;
        SEQUENCE.setRelease(sequence, s, p + 1);
    }

    /**
     * Writes the first {@code n} completions staged in {@code batch} into {@code n}
     * consecutive positions claimed with one atomic add; the caller holds a credit for each.
     * Each slot is published with its own release store (a plain store on x86), in order, so
     * readers see the batch grow from its first entry and never a hole.
     */
    void writeBatch(CompletionBatch batch, int n) {
        long first = tail.claimNext(n);
        for (int i = 0; i < n; i++) {
            long p = first + i;
            int s = (int) p & mask;
            while ((long) SEQUENCE.getAcquire(sequence, s) != p) {
                Thread.onSpinWait(); // normally free at once: see the class comment
            }
            context[s] = batch.context(i);
            flags[s] = batch.flags(i);
            len[s] = batch.len(i);
            buf[s] = batch.buf(i);
            bufOffset[s] = batch.bufOffset(i);
            data[s] = batch.data(i);
            tag[s] = batch.tag(i);
            srcAddr[s] = batch.srcAddr(i);
            error[s] = false;
            SEQUENCE.setRelease(sequence, s, p + 1);
        }
    }

    /**
     * Writes an error completion into the next position; the caller holds a credit.
     * {@code ed} is kept by reference (R3: the provider hands it over).
     */
    void writeError(Object ctx, long fl, long length, ByteBuffer b, int off, long d, long t,
                    long ol, int e, int pe, byte[] ed, int edSize, long src) {
        long p = tail.claimNext();
        int s = (int) p & mask;
        while ((long) SEQUENCE.getAcquire(sequence, s) != p) {
            Thread.onSpinWait(); // normally free at once: see the class comment
        }
        context[s] = ctx;
        flags[s] = fl;
        len[s] = length;
        buf[s] = b;
        bufOffset[s] = off;
        data[s] = d;
        tag[s] = t;
        srcAddr[s] = src;
        olen[s] = ol;
        err[s] = e;
        provErrno[s] = pe;
        errData[s] = ed;
        errDataSize[s] = edSize;
        error[s] = true;
        SEQUENCE.setRelease(sequence, s, p + 1);
    }

    // ------------------------------------------------------------------ readers

    /**
     * Takes up to {@code count} successful completions from the head into
     * {@code entries[0..n)} (and their senders into {@code src[0..n)} unless it is null).
     *
     * @param count &gt; 0; {@code entries[0..count)} non-null (checked by the caller)
     * @return n &gt; 0, {@link #EMPTY}, or {@link #ERROR_AT_HEAD}
     */
    int read(CqEntry[] entries, int count, long[] src) {
        final long[] seq = sequence;
        final boolean[] isError = error;
        final int m = mask;
        while (true) {
            final long h = (long) HEAD.getVolatile(this);
            int n = 0;
            boolean errorNext = false;
            while (n < count) {
                long p = h + n;
                int s = (int) p & m;
                if ((long) SEQUENCE.getAcquire(seq, s) != p + 1) {
                    break;
                }
                if (isError[s]) {
                    errorNext = true;
                    break;
                }
                n++;
            }
            if (n == 0) {
                if ((long) HEAD.getVolatile(this) != h) {
                    continue; // a stale head: look again rather than report a false empty
                }
                return errorNext ? ERROR_AT_HEAD : EMPTY;
            }
            copy(h, n, entries, src);
            if (HEAD.compareAndSet(this, h, h + n)) {
                release(h, n);
                return n;
            }
            // Lost the race: the copy may be torn; retry (the caller's entries are overwritten).
        }
    }

    /** Copies only the fields of the format (fi_cq(3) entry structs); zeros for the rest. */
    private void copy(long h, int n, CqEntry[] entries, long[] src) {
        final int m = mask;
        switch (format) {
            case FORMAT_CONTEXT:
                for (int i = 0; i < n; i++) {
                    int s = (int) (h + i) & m;
                    entries[i].set(context[s], 0L, 0L, null, 0, 0L, 0L);
                }
                break;
            case FORMAT_MSG:
                for (int i = 0; i < n; i++) {
                    int s = (int) (h + i) & m;
                    entries[i].set(context[s], flags[s], len[s], null, 0, 0L, 0L);
                }
                break;
            case FORMAT_DATA:
                for (int i = 0; i < n; i++) {
                    int s = (int) (h + i) & m;
                    entries[i].set(context[s], flags[s], len[s], buf[s], bufOffset[s], data[s], 0L);
                }
                break;
            default: // FORMAT_TAGGED
                for (int i = 0; i < n; i++) {
                    int s = (int) (h + i) & m;
                    entries[i].set(context[s], flags[s], len[s], buf[s], bufOffset[s], data[s], tag[s]);
                }
                break;
        }
        if (src != null) {
            for (int i = 0; i < n; i++) {
                src[i] = srcAddr[(int) (h + i) & m];
            }
        }
    }

    /** Frees slots {@code h .. h+n-1} that this reader won, then returns their credits. */
    private void release(long h, int n) {
        final long[] seq = sequence;
        final int m = mask;
        for (int i = 0; i < n; i++) {
            long p = h + i;
            int s = (int) p & m;
            // References the application or provider handed in must not outlive the read.
            context[s] = null;
            buf[s] = null;
            SEQUENCE.setRelease(seq, s, p + capacity);
        }
        // After the releases: a producer granted this room finds its slot free.
        CREDITS.getAndAdd(this, (long) n);
    }

    /**
     * Takes the error completion at the head into {@code e} (every field: fi_cq_err_entry has
     * them all whatever the format).
     *
     * @return 1, or {@link #EMPTY} when the head holds no published error completion
     */
    int readError(CqErrEntry e) {
        final int m = mask;
        while (true) {
            final long h = (long) HEAD.getVolatile(this);
            int s = (int) h & m;
            if ((long) SEQUENCE.getAcquire(sequence, s) != h + 1 || !error[s]) {
                if ((long) HEAD.getVolatile(this) != h) {
                    continue;
                }
                return EMPTY;
            }
            e.setAll(context[s], flags[s], len[s], buf[s], bufOffset[s], data[s], tag[s],
                    olen[s], err[s], provErrno[s], errData[s], errDataSize[s]);
            if (HEAD.compareAndSet(this, h, h + 1)) {
                context[s] = null;
                buf[s] = null;
                errData[s] = null; // the entry keeps it (R3); the ring must not
                SEQUENCE.setRelease(sequence, s, h + capacity);
                CREDITS.getAndAdd(this, 1L);
                return 1;
            }
        }
    }

    /**
     * What is at the head, without taking it.
     *
     * @return 1 (a successful completion), {@link #EMPTY} or {@link #ERROR_AT_HEAD}
     */
    int peekHead() {
        while (true) {
            final long h = (long) HEAD.getVolatile(this);
            int s = (int) h & mask;
            if ((long) SEQUENCE.getAcquire(sequence, s) == h + 1) {
                return error[s] ? ERROR_AT_HEAD : 1;
            }
            if ((long) HEAD.getVolatile(this) == h) {
                return EMPTY;
            }
        }
    }

    /**
     * Whether a reader waiting for {@code threshold} completions should wake: at least that
     * many are published from the head, or an error completion comes before them (a read
     * then has something to say: the entries before it, or {@code -EAVAIL}).
     *
     * @param threshold clamped to {@code [1, capacity]} so that it can always be met
     */
    boolean hasAtLeast(long threshold) {
        int want = threshold <= 1 ? 1 : threshold >= capacity ? capacity : (int) threshold;
        final long h = (long) HEAD.getVolatile(this);
        for (int i = 0; i < want; i++) {
            long p = h + i;
            int s = (int) p & mask;
            if ((long) SEQUENCE.getAcquire(sequence, s) != p + 1) {
                return false; // a stale head only makes this conservative: waiters re-check
            }
            if (error[s]) {
                return true;
            }
        }
        return true;
    }

    /**
     * Drops every reference the slots hold (the CQ was closed: its completions are lost, R9).
     * Sequence numbers are left alone so that a late producer holding a credit still finds
     * its slot.
     */
    void clearReferences() {
        Arrays.fill(context, null);
        Arrays.fill(buf, null);
        Arrays.fill(errData, null);
    }
}
