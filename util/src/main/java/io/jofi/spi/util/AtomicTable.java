package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.Fi;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Applies one fi_atomic(3) operation of any datatype to {@code count} elements of a target
 * buffer, and says which (datatype, op) pairs exist: the target-side arithmetic of libfabric's
 * util layer (ofi_atomic.c, ofi_atomic_valid) shared by every provider that serves atomics in
 * software. {@link AtomicElements} holds the per-element definitions.
 *
 * <p>Which pairs are valid ({@link #valid}), by the kind of call:
 * <pre>
 *   op                          integers  FLOAT/DOUBLE  FLOAT/DOUBLE_COMPLEX  kind
 *   FI_MIN FI_MAX                  x          x                              write, fetch
 *   FI_SUM FI_PROD                 x          x               x              write, fetch
 *   FI_LOR FI_LAND FI_LXOR         x          x               x              write, fetch
 *   FI_BOR FI_BAND FI_BXOR         x                                         write, fetch
 *   FI_ATOMIC_WRITE                x          x               x              write, fetch
 *   FI_ATOMIC_READ                 x          x               x              fetch
 *   FI_CSWAP FI_CSWAP_NE           x          x               x              compare
 *   FI_CSWAP_LE/LT/GE/GT           x          x                              compare
 *   FI_MSWAP                       x                                         compare
 * </pre>
 * Integers are FI_INT8 … FI_UINT64. {@code FI_LONG_DOUBLE} and {@code FI_LONG_DOUBLE_COMPLEX}
 * are refused ({@code -EOPNOTSUPP}): Java has no long double, and an emulated x87 80-bit
 * arithmetic is not offered. {@code FI_INT128}/{@code FI_UINT128} are refused too (no 128-bit
 * atomics in the JVM). Elements are in the host's byte order, as libfabric's.
 *
 * <p>How: each element is applied atomically on its own (libfabric's built-in atomics do the
 * same; the {@code count} elements as a whole are not one atomic step). An element of a direct
 * buffer (a mapped file included) that an aligned 4- or 8-byte word holds is updated by a
 * compare-and-swap loop on that word, so it is atomic against every thread and process that
 * updates it atomically; a 1- or 2-byte element is swapped within its aligned 4-byte word.
 * Anything else (a heap buffer, a misaligned element, {@code FI_DOUBLE_COMPLEX}'s 16 bytes) is
 * read and written under one lock of this class, atomic against every atomic applied here in
 * this JVM. An unchanged element is not written (a read-only view can be read). No call
 * allocates; callers check bounds, access and {@link #valid} first.
 */
public final class AtomicTable {
    private static final VarHandle SHORTS = MethodHandles.byteBufferViewVarHandle(short[].class,
            ByteOrder.nativeOrder());
    private static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class,
            ByteOrder.nativeOrder());
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
            ByteOrder.nativeOrder());
    private static final boolean LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    /** Serialises the plain updates and owns {@link #COMPLEX_OUT}. */
    private static final Object PLAIN = new Object();
    /** FI_DOUBLE_COMPLEX's new value, used only under {@link #PLAIN}. */
    private static final double[] COMPLEX_OUT = new double[2];

    private AtomicTable() {
    }

    /** The bytes of one element of {@code datatype}, or 0 for a datatype not served here. */
    public static int size(int datatype) {
        return switch (datatype) {
            case Fi.FI_INT8, Fi.FI_UINT8 -> 1;
            case Fi.FI_INT16, Fi.FI_UINT16 -> 2;
            case Fi.FI_INT32, Fi.FI_UINT32, Fi.FI_FLOAT -> 4;
            case Fi.FI_INT64, Fi.FI_UINT64, Fi.FI_DOUBLE, Fi.FI_FLOAT_COMPLEX -> 8;
            case Fi.FI_DOUBLE_COMPLEX -> 16;
            default -> 0; // FI_LONG_DOUBLE(_COMPLEX), FI_INT128, FI_UINT128, unknown
        };
    }

    /**
     * Whether {@code (datatype, op)} is served for the kind of call {@code flags} names, as
     * ofi_atomic_valid answers: 0 for {@code fi_atomic} (flags 0),
     * {@code Fi.FI_FETCH_ATOMIC} for {@code fi_fetch_atomic}, {@code Fi.FI_COMPARE_ATOMIC} for
     * {@code fi_compare_atomic}.
     *
     * @return 0, {@code -EOPNOTSUPP} for a pair not served, {@code -EBADFLAGS} for other flags
     *         or both kinds at once
     */
    public static int valid(int datatype, int op, long flags) {
        if ((flags & ~(Fi.FI_FETCH_ATOMIC | Fi.FI_COMPARE_ATOMIC)) != 0
                || flags == (Fi.FI_FETCH_ATOMIC | Fi.FI_COMPARE_ATOMIC)) {
            return -Errno.EBADFLAGS;
        }
        if (size(datatype) == 0) {
            return -Errno.EOPNOTSUPP;
        }
        boolean compareKind = flags == Fi.FI_COMPARE_ATOMIC;
        boolean isCompareOp = op >= Fi.FI_CSWAP && op <= Fi.FI_MSWAP;
        if (compareKind != isCompareOp || op < Fi.FI_MIN || op > Fi.FI_MSWAP
                || op == Fi.FI_ATOMIC_READ && flags != Fi.FI_FETCH_ATOMIC) {
            return -Errno.EOPNOTSUPP;
        }
        boolean integer = datatype <= Fi.FI_UINT64;
        boolean complex = datatype == Fi.FI_FLOAT_COMPLEX || datatype == Fi.FI_DOUBLE_COMPLEX;
        boolean ok = switch (op) {
            case Fi.FI_BOR, Fi.FI_BAND, Fi.FI_BXOR, Fi.FI_MSWAP -> integer;
            case Fi.FI_MIN, Fi.FI_MAX, Fi.FI_CSWAP_LE, Fi.FI_CSWAP_LT, Fi.FI_CSWAP_GE, Fi.FI_CSWAP_GT -> !complex;
            default -> true;
        };
        return ok ? 0 : -Errno.EOPNOTSUPP;
    }

    /**
     * {@code fi_query_atomic}'s count for a transport that carries at most {@code maxBytes}
     * bytes of elements per operation: {@link #valid}'s refusal, {@code -EOPNOTSUPP} for an
     * element wider than {@code maxBytes}, else {@code maxBytes / size}.
     */
    public static int count(int datatype, int op, long flags, int maxBytes) {
        int rc = valid(datatype, op, flags);
        if (rc != 0) {
            return rc;
        }
        int size = size(datatype);
        return size > maxBytes ? -Errno.EOPNOTSUPP : maxBytes / size;
    }

    /**
     * {@code bytes} (at most 8) bytes of {@code b} from {@code i} as one long whose in-memory
     * layout on this host is those bytes, first byte first: elements packed for a wire word that
     * both sides read and write as a long ({@link #unpack} undoes it).
     */
    public static long pack(ByteBuffer b, int i, int bytes) {
        long v = 0;
        for (int k = 0; k < bytes; k++) {
            v |= (b.get(i + k) & 0xffL) << (LITTLE ? 8 * k : 56 - 8 * k);
        }
        return v;
    }

    /** {@link #pack}'s inverse: the first {@code bytes} bytes of {@code v}'s layout into {@code b} at {@code i}. */
    public static void unpack(long v, ByteBuffer b, int i, int bytes) {
        for (int k = 0; k < bytes; k++) {
            b.put(i + k, (byte) (v >>> (LITTLE ? 8 * k : 56 - 8 * k)));
        }
    }

    /**
     * Whether {@link #apply} updates each of the {@code count} elements at {@code index} with a
     * compare-and-swap (so atomically against other processes sharing the memory), not under
     * this JVM's lock: a direct buffer, each element aligned to its size, at most 8 bytes, a
     * 1- or 2-byte element's 4-byte word inside the buffer.
     */
    public static boolean lockFree(ByteBuffer b, int index, int datatype, int count) {
        int size = size(datatype);
        if (!b.isDirect() || size == 0 || size > 8 || b.alignmentOffset(index, size) != 0) {
            return false;
        }
        if (size >= 4) {
            return true;
        }
        int first = index - b.alignmentOffset(index, 4);
        int last = index + (count - 1) * size;
        return first >= 0 && last - b.alignmentOffset(last, 4) + 4 <= b.capacity();
    }

    /**
     * Applies {@code op} to {@code count} elements of {@code datatype} at byte
     * {@code targetIndex} of {@code target} (host order; every buffer's own order and
     * position ignored), taking element {@code i}'s operand and compare value at
     * {@code operandIndex + i * size} and {@code compareIndex + i * size}, and writing its old
     * value at {@code resultIndex + i * size} of {@code result}.
     *
     * @param operand null for {@code FI_ATOMIC_READ}
     * @param compare null unless a compare op
     * @param result  null unless a fetching or compare call
     */
    public static void apply(int datatype, int op, ByteBuffer target, int targetIndex, int count,
                             ByteBuffer operand, int operandIndex, ByteBuffer compare, int compareIndex,
                             ByteBuffer result, int resultIndex) {
        int size = size(datatype);
        boolean signed = datatype <= Fi.FI_INT64 && (datatype & 1) == 0;
        for (int i = 0; i < count; i++) {
            int at = targetIndex + i * size;
            if (size == 16) {
                applyDoubleComplex(op, target, at, operand, operandIndex + i * 16, compare, compareIndex + i * 16,
                        result, resultIndex + i * 16);
                continue;
            }
            long s = operand == null ? 0 : read(operand, operandIndex + i * size, size, signed);
            long c = compare == null ? 0 : read(compare, compareIndex + i * size, size, signed);
            long old = applyOne(datatype, op, target, at, size, signed, s, c);
            if (result != null) {
                write(result, resultIndex + i * size, size, old);
            }
        }
    }

    /** One element of at most 8 bytes: its old bits. */
    private static long applyOne(int datatype, int op, ByteBuffer b, int at, int size, boolean signed, long s,
                                 long c) {
        if (b.isDirect()) {
            if (size == 8 && b.alignmentOffset(at, 8) == 0) {
                long old = (long) LONGS.getVolatile(b, at);
                while (true) {
                    long now = AtomicElements.next(datatype, op, old, s, c);
                    if (now == old) {
                        return old;
                    }
                    long seen = (long) LONGS.compareAndExchange(b, at, old, now);
                    if (seen == old) {
                        return old;
                    }
                    old = seen;
                }
            }
            int word = at - b.alignmentOffset(at, 4);
            if (size <= 4 && word >= 0 && word + 4 <= b.capacity() && at + size <= word + 4) {
                int shift = LITTLE ? (at - word) * 8 : (4 - size - (at - word)) * 8;
                long mask = size == 4 ? 0xffffffffL : (1L << size * 8) - 1;
                int w = (int) INTS.getVolatile(b, word);
                while (true) {
                    long old = extend((w >>> shift) & mask, size, signed);
                    long now = AtomicElements.next(datatype, op, old, s, c);
                    if (((now ^ old) & mask) == 0) {
                        return old;
                    }
                    int next = (int) ((w & ~(mask << shift)) | ((now & mask) << shift));
                    int seen = (int) INTS.compareAndExchange(b, word, w, next);
                    if (seen == w) {
                        return old;
                    }
                    w = seen;
                }
            }
        }
        synchronized (PLAIN) {
            long old = read(b, at, size, signed);
            long now = AtomicElements.next(datatype, op, old, s, c);
            if (((now ^ old) & mask(size)) != 0) {
                write(b, at, size, now);
            }
            return old;
        }
    }

    private static void applyDoubleComplex(int op, ByteBuffer b, int at, ByteBuffer operand, int oi,
                                           ByteBuffer compare, int ci, ByteBuffer result, int ri) {
        double sr = operand == null ? 0 : dbl(operand, oi);
        double si = operand == null ? 0 : dbl(operand, oi + 8);
        double cr = compare == null ? 0 : dbl(compare, ci);
        double cim = compare == null ? 0 : dbl(compare, ci + 8);
        synchronized (PLAIN) {
            long oldRe = (long) LONGS.get(b, at);
            long oldIm = (long) LONGS.get(b, at + 8);
            AtomicElements.nextDoubleComplex(op, Double.longBitsToDouble(oldRe), Double.longBitsToDouble(oldIm),
                    sr, si, cr, cim, COMPLEX_OUT);
            long nowRe = Double.doubleToRawLongBits(COMPLEX_OUT[0]);
            long nowIm = Double.doubleToRawLongBits(COMPLEX_OUT[1]);
            if (nowRe != oldRe || nowIm != oldIm) {
                LONGS.set(b, at, nowRe);
                LONGS.set(b, at + 8, nowIm);
            }
            if (result != null) {
                LONGS.set(result, ri, oldRe);
                LONGS.set(result, ri + 8, oldIm);
            }
        }
    }

    private static double dbl(ByteBuffer b, int i) {
        return Double.longBitsToDouble((long) LONGS.get(b, i));
    }

    private static long mask(int size) {
        return size == 8 ? -1L : (1L << size * 8) - 1;
    }

    private static long extend(long bits, int size, boolean signed) {
        if (!signed || size == 8) {
            return bits;
        }
        int unused = 64 - size * 8;
        return bits << unused >> unused;
    }

    /** The element of {@code size} bytes at {@code i}, in host order, extended as {@link AtomicElements} wants. */
    private static long read(ByteBuffer b, int i, int size, boolean signed) {
        return switch (size) {
            case 1 -> signed ? b.get(i) : b.get(i) & 0xffL;
            case 2 -> signed ? (short) SHORTS.get(b, i) : (short) SHORTS.get(b, i) & 0xffffL;
            case 4 -> signed ? (int) INTS.get(b, i) : (int) INTS.get(b, i) & 0xffffffffL;
            default -> (long) LONGS.get(b, i);
        };
    }

    private static void write(ByteBuffer b, int i, int size, long v) {
        switch (size) {
            case 1 -> b.put(i, (byte) v);
            case 2 -> SHORTS.set(b, i, (short) v);
            case 4 -> INTS.set(b, i, (int) v);
            default -> LONGS.set(b, i, v);
        }
    }
}
