package io.jofi.spi.util;

import io.jofi.Fi;
import java.nio.ByteOrder;

/**
 * Computes the new value of one element of a fi_atomic(3) target from the old one, the
 * operand and the compare value, as libfabric's util layer (ofi_atomic.c) defines it for each
 * (datatype, op) pair; {@link AtomicTable} reads, stores and makes it atomic.
 *
 * <p>An element of at most 8 bytes travels as a {@code long} of bits: an integer sign-extended
 * (signed types) or zero-extended (unsigned ones); a float its raw bits in the low 32; a double
 * its raw bits; an {@code FI_FLOAT_COMPLEX} the 8 bytes as the host reads them (real part
 * first in memory). Storing truncates, so integer arithmetic wraps at the type's width.
 * An unchanged element comes back with exactly its old bits (a NaN payload, a -0.0 are kept),
 * so the caller can skip the write. {@code FI_DOUBLE_COMPLEX} has its own method (16 bytes).
 *
 * <p>The C expressions, element by element ({@code d} the target, {@code s} the operand,
 * {@code c} the compare value; a comparison of floats is C's, so a NaN compares false):
 * <pre>
 *   FI_MIN  if (d &gt; s) d = s        FI_LOR   d = d || s       FI_CSWAP     if (c == d) d = s
 *   FI_MAX  if (d &lt; s) d = s        FI_LAND  d = d &amp;&amp; s       FI_CSWAP_NE  if (c != d) d = s
 *   FI_SUM  d += s                  FI_LXOR  d = (d &amp;&amp; !s) || (!d &amp;&amp; s)   FI_CSWAP_LE if (c &lt;= d) d = s
 *   FI_PROD d *= s                  FI_BOR/BAND/BXOR  d |= s, &amp;=, ^=   FI_CSWAP_LT/GE/GT likewise
 *   FI_ATOMIC_READ  d               FI_ATOMIC_WRITE   d = s     FI_MSWAP  d = (s &amp; c) | (d &amp; ~c)
 * </pre>
 * Which pairs exist at all is {@link AtomicTable#valid}'s; here an op outside a type's set leaves
 * the element unchanged.
 */
final class AtomicElements {
    /** Whether the host stores the low half of a long first (the real part of a float complex). */
    private static final boolean LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private AtomicElements() {
    }

    /** The new bits of an element of {@code datatype} (at most 8 bytes wide). */
    static long next(int datatype, int op, long d, long s, long c) {
        return switch (datatype) {
            case Fi.FI_UINT64 -> integer(op, d, s, c, true);
            case Fi.FI_INT8, Fi.FI_UINT8, Fi.FI_INT16, Fi.FI_UINT16, Fi.FI_INT32, Fi.FI_UINT32, Fi.FI_INT64 ->
                    integer(op, d, s, c, false); // zero-extended unsigned narrow values compare right signed
            case Fi.FI_FLOAT -> floats(op, d, s, c);
            case Fi.FI_DOUBLE -> doubles(op, d, s, c);
            case Fi.FI_FLOAT_COMPLEX -> floatComplex(op, d, s, c);
            default -> d;
        };
    }

    private static int cmp(long a, long b, boolean unsigned) {
        return unsigned ? Long.compareUnsigned(a, b) : Long.compare(a, b);
    }

    private static long integer(int op, long d, long s, long c, boolean unsigned) {
        return switch (op) {
            case Fi.FI_MIN -> cmp(d, s, unsigned) > 0 ? s : d;
            case Fi.FI_MAX -> cmp(d, s, unsigned) < 0 ? s : d;
            case Fi.FI_SUM -> d + s;
            case Fi.FI_PROD -> d * s;
            case Fi.FI_LOR -> d != 0 || s != 0 ? 1 : 0;
            case Fi.FI_LAND -> d != 0 && s != 0 ? 1 : 0;
            case Fi.FI_LXOR -> (d != 0) != (s != 0) ? 1 : 0;
            case Fi.FI_BOR -> d | s;
            case Fi.FI_BAND -> d & s;
            case Fi.FI_BXOR -> d ^ s;
            case Fi.FI_ATOMIC_WRITE -> s;
            case Fi.FI_CSWAP -> c == d ? s : d;
            case Fi.FI_CSWAP_NE -> c != d ? s : d;
            case Fi.FI_CSWAP_LE -> cmp(c, d, unsigned) <= 0 ? s : d;
            case Fi.FI_CSWAP_LT -> cmp(c, d, unsigned) < 0 ? s : d;
            case Fi.FI_CSWAP_GE -> cmp(c, d, unsigned) >= 0 ? s : d;
            case Fi.FI_CSWAP_GT -> cmp(c, d, unsigned) > 0 ? s : d;
            case Fi.FI_MSWAP -> (s & c) | (d & ~c);
            default -> d; // FI_ATOMIC_READ
        };
    }

    private static long floats(int op, long db, long sb, long cb) {
        float d = Float.intBitsToFloat((int) db);
        float s = Float.intBitsToFloat((int) sb);
        float c = Float.intBitsToFloat((int) cb);
        return switch (op) {
            case Fi.FI_MIN -> d > s ? sb : db;
            case Fi.FI_MAX -> d < s ? sb : db;
            case Fi.FI_SUM -> f(d + s);
            case Fi.FI_PROD -> f(d * s);
            case Fi.FI_LOR -> f(d != 0 || s != 0 ? 1f : 0f);
            case Fi.FI_LAND -> f(d != 0 && s != 0 ? 1f : 0f);
            case Fi.FI_LXOR -> f((d != 0) != (s != 0) ? 1f : 0f);
            case Fi.FI_ATOMIC_WRITE -> sb;
            case Fi.FI_CSWAP -> c == d ? sb : db;
            case Fi.FI_CSWAP_NE -> c != d ? sb : db;
            case Fi.FI_CSWAP_LE -> c <= d ? sb : db;
            case Fi.FI_CSWAP_LT -> c < d ? sb : db;
            case Fi.FI_CSWAP_GE -> c >= d ? sb : db;
            case Fi.FI_CSWAP_GT -> c > d ? sb : db;
            default -> db;
        };
    }

    private static long f(float v) {
        return Float.floatToRawIntBits(v) & 0xffffffffL;
    }

    private static long doubles(int op, long db, long sb, long cb) {
        double d = Double.longBitsToDouble(db);
        double s = Double.longBitsToDouble(sb);
        double c = Double.longBitsToDouble(cb);
        return switch (op) {
            case Fi.FI_MIN -> d > s ? sb : db;
            case Fi.FI_MAX -> d < s ? sb : db;
            case Fi.FI_SUM -> Double.doubleToRawLongBits(d + s);
            case Fi.FI_PROD -> Double.doubleToRawLongBits(d * s);
            case Fi.FI_LOR -> Double.doubleToRawLongBits(d != 0 || s != 0 ? 1 : 0);
            case Fi.FI_LAND -> Double.doubleToRawLongBits(d != 0 && s != 0 ? 1 : 0);
            case Fi.FI_LXOR -> Double.doubleToRawLongBits((d != 0) != (s != 0) ? 1 : 0);
            case Fi.FI_ATOMIC_WRITE -> sb;
            case Fi.FI_CSWAP -> c == d ? sb : db;
            case Fi.FI_CSWAP_NE -> c != d ? sb : db;
            case Fi.FI_CSWAP_LE -> c <= d ? sb : db;
            case Fi.FI_CSWAP_LT -> c < d ? sb : db;
            case Fi.FI_CSWAP_GE -> c >= d ? sb : db;
            case Fi.FI_CSWAP_GT -> c > d ? sb : db;
            default -> db;
        };
    }

    private static float re(long bits) {
        return Float.intBitsToFloat(LITTLE ? (int) bits : (int) (bits >>> 32));
    }

    private static float im(long bits) {
        return Float.intBitsToFloat(LITTLE ? (int) (bits >>> 32) : (int) bits);
    }

    private static long complex(float re, float im) {
        long r = Float.floatToRawIntBits(re) & 0xffffffffL;
        long i = Float.floatToRawIntBits(im) & 0xffffffffL;
        return LITTLE ? r | i << 32 : r << 32 | i;
    }

    private static long floatComplex(int op, long db, long sb, long cb) {
        float dr = re(db);
        float di = im(db);
        float sr = re(sb);
        float si = im(sb);
        boolean dTrue = dr != 0 || di != 0; // C: a complex is true when it is not 0 + 0i
        boolean sTrue = sr != 0 || si != 0;
        return switch (op) {
            case Fi.FI_SUM -> complex(dr + sr, di + si);
            case Fi.FI_PROD -> complex(dr * sr - di * si, dr * si + di * sr);
            case Fi.FI_LOR -> complex(dTrue || sTrue ? 1f : 0f, 0f);
            case Fi.FI_LAND -> complex(dTrue && sTrue ? 1f : 0f, 0f);
            case Fi.FI_LXOR -> complex(dTrue != sTrue ? 1f : 0f, 0f);
            case Fi.FI_ATOMIC_WRITE -> sb;
            case Fi.FI_CSWAP -> re(cb) == dr && im(cb) == di ? sb : db;
            case Fi.FI_CSWAP_NE -> re(cb) == dr && im(cb) == di ? db : sb;
            default -> db;
        };
    }

    /**
     * {@code FI_DOUBLE_COMPLEX}: writes the new value into {@code out[0..1]} (real, imaginary)
     * from the old {@code d}, operand {@code s} and compare {@code c}, as {@link #next}.
     */
    static void nextDoubleComplex(int op, double dr, double di, double sr, double si, double cr, double ci,
                                  double[] out) {
        boolean dTrue = dr != 0 || di != 0;
        boolean sTrue = sr != 0 || si != 0;
        double nr = dr;
        double ni = di;
        switch (op) {
            case Fi.FI_SUM -> {
                nr = dr + sr;
                ni = di + si;
            }
            case Fi.FI_PROD -> {
                nr = dr * sr - di * si;
                ni = dr * si + di * sr;
            }
            case Fi.FI_LOR -> {
                nr = dTrue || sTrue ? 1 : 0;
                ni = 0;
            }
            case Fi.FI_LAND -> {
                nr = dTrue && sTrue ? 1 : 0;
                ni = 0;
            }
            case Fi.FI_LXOR -> {
                nr = dTrue != sTrue ? 1 : 0;
                ni = 0;
            }
            case Fi.FI_ATOMIC_WRITE -> {
                nr = sr;
                ni = si;
            }
            case Fi.FI_CSWAP, Fi.FI_CSWAP_NE -> {
                boolean equal = cr == dr && ci == di;
                if (equal == (op == Fi.FI_CSWAP)) {
                    nr = sr;
                    ni = si;
                }
            }
            default -> {
            }
        }
        out[0] = nr;
        out[1] = ni;
    }
}
