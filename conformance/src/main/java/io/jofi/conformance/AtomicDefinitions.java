package io.jofi.conformance;

import io.jofi.Fi;
import java.nio.ByteBuffer;

/**
 * The expected result of every fi_atomic(3) (datatype, op) pair, written from the manual page's
 * definitions ({@code addr[i]} the target, {@code buf[i]} the operand, {@code compare[i]}):
 * <pre>
 *   FI_MIN   if (buf[i] &lt; addr[i]) addr[i] = buf[i]      FI_CSWAP     if (compare[i] == addr[i]) addr[i] = buf[i]
 *   FI_MAX   if (buf[i] &gt; addr[i]) addr[i] = buf[i]      FI_CSWAP_NE  if (compare[i] != addr[i]) ...
 *   FI_SUM   addr[i] = addr[i] + buf[i]                  FI_CSWAP_LE  if (compare[i] &lt;= addr[i]) ...
 *   FI_PROD  addr[i] = addr[i] * buf[i]                  FI_CSWAP_LT/GE/GT likewise
 *   FI_LOR/LAND  addr[i] = (addr[i] || / &amp;&amp; buf[i])      FI_MSWAP  addr[i] = (buf[i] &amp; compare[i]) | (addr[i] &amp; ~compare[i])
 *   FI_LXOR  addr[i] = ((addr[i] &amp;&amp; !buf[i]) || (!addr[i] &amp;&amp; buf[i]))   FI_BOR/BAND/BXOR  |, &amp;, ^
 *   FI_ATOMIC_READ  unchanged                             FI_ATOMIC_WRITE  addr[i] = buf[i]
 * </pre>
 * in C's arithmetic of each type: integers wrap at their width, unsigned ones compare unsigned,
 * floats compare as IEEE (a NaN compares false), a complex value is true unless 0 + 0i and
 * {@code (a+bi)(c+di) = (ac-bd) + (ad+bc)i}. Written apart from the providers' shared table on
 * purpose: the table test checks one against the other. Buffers are in host order.
 */
final class AtomicDefinitions {
    private AtomicDefinitions() {
    }

    /** Applies {@code op} to {@code count} elements of {@code addr} from index 0, as the class comment says. */
    static void apply(int datatype, int op, ByteBuffer addr, ByteBuffer buf, ByteBuffer compare, int count) {
        for (int i = 0; i < count; i++) {
            switch (datatype) {
                case Fi.FI_INT8 -> addr.put(i, (byte) integer(op, addr.get(i), buf.get(i), compare.get(i), false));
                case Fi.FI_UINT8 -> addr.put(i, (byte) integer(op, addr.get(i) & 0xff, buf.get(i) & 0xff,
                        compare.get(i) & 0xff, false));
                case Fi.FI_INT16 -> addr.putShort(i * 2, (short) integer(op, addr.getShort(i * 2), buf.getShort(i * 2),
                        compare.getShort(i * 2), false));
                case Fi.FI_UINT16 -> addr.putShort(i * 2, (short) integer(op, addr.getShort(i * 2) & 0xffff,
                        buf.getShort(i * 2) & 0xffff, compare.getShort(i * 2) & 0xffff, false));
                case Fi.FI_INT32 -> addr.putInt(i * 4, (int) integer(op, addr.getInt(i * 4), buf.getInt(i * 4),
                        compare.getInt(i * 4), false));
                case Fi.FI_UINT32 -> addr.putInt(i * 4, (int) integer(op, Integer.toUnsignedLong(addr.getInt(i * 4)),
                        Integer.toUnsignedLong(buf.getInt(i * 4)), Integer.toUnsignedLong(compare.getInt(i * 4)), false));
                case Fi.FI_INT64 -> addr.putLong(i * 8, integer(op, addr.getLong(i * 8), buf.getLong(i * 8),
                        compare.getLong(i * 8), false));
                case Fi.FI_UINT64 -> addr.putLong(i * 8, integer(op, addr.getLong(i * 8), buf.getLong(i * 8),
                        compare.getLong(i * 8), true));
                case Fi.FI_FLOAT -> addr.putFloat(i * 4, (float) real(op, addr.getFloat(i * 4), buf.getFloat(i * 4),
                        compare.getFloat(i * 4), true));
                case Fi.FI_DOUBLE -> addr.putDouble(i * 8, real(op, addr.getDouble(i * 8), buf.getDouble(i * 8),
                        compare.getDouble(i * 8), false));
                case Fi.FI_FLOAT_COMPLEX -> floatComplex(op, addr, buf, compare, i * 8);
                case Fi.FI_DOUBLE_COMPLEX -> doubleComplex(op, addr, buf, compare, i * 16);
                default -> throw new IllegalArgumentException("no definition for datatype " + datatype);
            }
        }
    }

    private static boolean less(long a, long b, boolean unsigned) {
        return unsigned ? Long.compareUnsigned(a, b) < 0 : a < b;
    }

    private static long integer(int op, long addr, long buf, long compare, boolean unsigned) {
        return switch (op) {
            case Fi.FI_MIN -> less(buf, addr, unsigned) ? buf : addr;
            case Fi.FI_MAX -> less(addr, buf, unsigned) ? buf : addr;
            case Fi.FI_SUM -> addr + buf;
            case Fi.FI_PROD -> addr * buf;
            case Fi.FI_LOR -> addr != 0 || buf != 0 ? 1 : 0;
            case Fi.FI_LAND -> addr != 0 && buf != 0 ? 1 : 0;
            case Fi.FI_LXOR -> addr != 0 && buf == 0 || addr == 0 && buf != 0 ? 1 : 0;
            case Fi.FI_BOR -> addr | buf;
            case Fi.FI_BAND -> addr & buf;
            case Fi.FI_BXOR -> addr ^ buf;
            case Fi.FI_ATOMIC_READ -> addr;
            case Fi.FI_ATOMIC_WRITE -> buf;
            case Fi.FI_CSWAP -> compare == addr ? buf : addr;
            case Fi.FI_CSWAP_NE -> compare != addr ? buf : addr;
            case Fi.FI_CSWAP_LE -> !less(addr, compare, unsigned) ? buf : addr;
            case Fi.FI_CSWAP_LT -> less(compare, addr, unsigned) ? buf : addr;
            case Fi.FI_CSWAP_GE -> !less(compare, addr, unsigned) ? buf : addr;
            case Fi.FI_CSWAP_GT -> less(addr, compare, unsigned) ? buf : addr;
            case Fi.FI_MSWAP -> buf & compare | addr & ~compare;
            default -> throw new IllegalArgumentException("no definition for op " + op);
        };
    }

    /** A float ({@code single}: rounded to float after each step, as C's float arithmetic) or a double. */
    private static double real(int op, double addr, double buf, double compare, boolean single) {
        double r = switch (op) {
            case Fi.FI_MIN -> buf < addr ? buf : addr;
            case Fi.FI_MAX -> buf > addr ? buf : addr;
            case Fi.FI_SUM -> single ? (float) addr + (float) buf : addr + buf;
            case Fi.FI_PROD -> single ? (float) addr * (float) buf : addr * buf;
            case Fi.FI_LOR -> addr != 0 || buf != 0 ? 1 : 0;
            case Fi.FI_LAND -> addr != 0 && buf != 0 ? 1 : 0;
            case Fi.FI_LXOR -> addr != 0 && buf == 0 || addr == 0 && buf != 0 ? 1 : 0;
            case Fi.FI_ATOMIC_READ -> addr;
            case Fi.FI_ATOMIC_WRITE -> buf;
            case Fi.FI_CSWAP -> compare == addr ? buf : addr;
            case Fi.FI_CSWAP_NE -> compare != addr ? buf : addr;
            case Fi.FI_CSWAP_LE -> compare <= addr ? buf : addr;
            case Fi.FI_CSWAP_LT -> compare < addr ? buf : addr;
            case Fi.FI_CSWAP_GE -> compare >= addr ? buf : addr;
            case Fi.FI_CSWAP_GT -> compare > addr ? buf : addr;
            default -> throw new IllegalArgumentException("no definition for op " + op + " on a real type");
        };
        return single ? (float) r : r;
    }

    private static void floatComplex(int op, ByteBuffer addr, ByteBuffer buf, ByteBuffer compare, int at) {
        float[] r = complex(op, addr.getFloat(at), addr.getFloat(at + 4), buf.getFloat(at), buf.getFloat(at + 4),
                compare.getFloat(at), compare.getFloat(at + 4));
        addr.putFloat(at, r[0]).putFloat(at + 4, r[1]);
    }

    private static float[] complex(int op, float a, float b, float c, float d, float cmpRe, float cmpIm) {
        boolean x = a != 0 || b != 0;
        boolean y = c != 0 || d != 0;
        boolean equal = cmpRe == a && cmpIm == b;
        return switch (op) {
            case Fi.FI_SUM -> new float[] {a + c, b + d};
            case Fi.FI_PROD -> new float[] {a * c - b * d, a * d + b * c};
            case Fi.FI_LOR -> new float[] {x || y ? 1 : 0, 0};
            case Fi.FI_LAND -> new float[] {x && y ? 1 : 0, 0};
            case Fi.FI_LXOR -> new float[] {x && !y || !x && y ? 1 : 0, 0};
            case Fi.FI_ATOMIC_READ -> new float[] {a, b};
            case Fi.FI_ATOMIC_WRITE -> new float[] {c, d};
            case Fi.FI_CSWAP -> equal ? new float[] {c, d} : new float[] {a, b};
            case Fi.FI_CSWAP_NE -> !equal ? new float[] {c, d} : new float[] {a, b};
            default -> throw new IllegalArgumentException("no definition for op " + op + " on a complex type");
        };
    }

    private static void doubleComplex(int op, ByteBuffer addr, ByteBuffer buf, ByteBuffer compare, int at) {
        double a = addr.getDouble(at);
        double b = addr.getDouble(at + 8);
        double c = buf.getDouble(at);
        double d = buf.getDouble(at + 8);
        boolean x = a != 0 || b != 0;
        boolean y = c != 0 || d != 0;
        boolean equal = compare.getDouble(at) == a && compare.getDouble(at + 8) == b;
        double[] r = switch (op) {
            case Fi.FI_SUM -> new double[] {a + c, b + d};
            case Fi.FI_PROD -> new double[] {a * c - b * d, a * d + b * c};
            case Fi.FI_LOR -> new double[] {x || y ? 1 : 0, 0};
            case Fi.FI_LAND -> new double[] {x && y ? 1 : 0, 0};
            case Fi.FI_LXOR -> new double[] {x && !y || !x && y ? 1 : 0, 0};
            case Fi.FI_ATOMIC_READ -> new double[] {a, b};
            case Fi.FI_ATOMIC_WRITE -> new double[] {c, d};
            case Fi.FI_CSWAP -> equal ? new double[] {c, d} : new double[] {a, b};
            case Fi.FI_CSWAP_NE -> !equal ? new double[] {c, d} : new double[] {a, b};
            default -> throw new IllegalArgumentException("no definition for op " + op + " on a complex type");
        };
        addr.putDouble(at, r[0]).putDouble(at + 8, r[1]);
    }

    /**
     * Two elements of {@code datatype} for each of target, operand and compare (host order):
     * values at the edges (a wrap, the unsigned top bit, a NaN, an infinity), and compare values
     * equal to the first target element and different from the second.
     */
    static void samples(int datatype, ByteBuffer addr, ByteBuffer buf, ByteBuffer compare) {
        switch (datatype) {
            case Fi.FI_INT8 -> {
                addr.put(0, (byte) 127).put(1, (byte) -3);
                buf.put(0, (byte) 1).put(1, (byte) -128);
                compare.put(0, (byte) 127).put(1, (byte) 5);
            }
            case Fi.FI_UINT8 -> {
                addr.put(0, (byte) 0xff).put(1, (byte) 3);
                buf.put(0, (byte) 1).put(1, (byte) 0x80);
                compare.put(0, (byte) 0xff).put(1, (byte) 200);
            }
            case Fi.FI_INT16 -> {
                addr.putShort(0, (short) 32767).putShort(2, (short) -300);
                buf.putShort(0, (short) 1).putShort(2, (short) 300);
                compare.putShort(0, (short) 32767).putShort(2, (short) -301);
            }
            case Fi.FI_UINT16 -> {
                addr.putShort(0, (short) 0xffff).putShort(2, (short) 3);
                buf.putShort(0, (short) 2).putShort(2, (short) 0x8000);
                compare.putShort(0, (short) 0xffff).putShort(2, (short) 0xfff0);
            }
            case Fi.FI_INT32, Fi.FI_UINT32 -> {
                addr.putInt(0, datatype == Fi.FI_INT32 ? Integer.MAX_VALUE : -1).putInt(4, -7);
                buf.putInt(0, 1).putInt(4, 0x80000000);
                compare.putInt(0, addr.getInt(0)).putInt(4, 9);
            }
            case Fi.FI_INT64, Fi.FI_UINT64 -> {
                addr.putLong(0, datatype == Fi.FI_INT64 ? Long.MAX_VALUE : -1L).putLong(8, -7);
                buf.putLong(0, 3).putLong(8, Long.MIN_VALUE | 0x00ff00ff);
                compare.putLong(0, addr.getLong(0)).putLong(8, 0x0f0f0f0f0f0f0f0fL);
            }
            case Fi.FI_FLOAT -> {
                addr.putFloat(0, 1.5f).putFloat(4, Float.NaN);
                buf.putFloat(0, -2.25f).putFloat(4, 3f);
                compare.putFloat(0, 1.5f).putFloat(4, 0f);
            }
            case Fi.FI_DOUBLE -> {
                addr.putDouble(0, 2.5).putDouble(8, -1e300);
                buf.putDouble(0, -4).putDouble(8, 1e300);
                compare.putDouble(0, 2.5).putDouble(8, -0.0);
            }
            case Fi.FI_FLOAT_COMPLEX -> {
                addr.putFloat(0, 1).putFloat(4, 2).putFloat(8, 0).putFloat(12, 0);
                buf.putFloat(0, 3).putFloat(4, 4).putFloat(8, 0).putFloat(12, -1);
                compare.putFloat(0, 1).putFloat(4, 2).putFloat(8, 1).putFloat(12, 0);
            }
            case Fi.FI_DOUBLE_COMPLEX -> {
                addr.putDouble(0, 1.5).putDouble(8, -2).putDouble(16, 0).putDouble(24, 0);
                buf.putDouble(0, 2).putDouble(8, 0.5).putDouble(16, 0).putDouble(24, 0);
                compare.putDouble(0, 1.5).putDouble(8, -2).putDouble(16, 0).putDouble(24, 1);
            }
            default -> throw new IllegalArgumentException("no samples for datatype " + datatype);
        }
    }

    /** Bytes of one element; 0 for a datatype without a definition here (long double, int128). */
    static int size(int datatype) {
        return switch (datatype) {
            case Fi.FI_INT8, Fi.FI_UINT8 -> 1;
            case Fi.FI_INT16, Fi.FI_UINT16 -> 2;
            case Fi.FI_INT32, Fi.FI_UINT32, Fi.FI_FLOAT -> 4;
            case Fi.FI_INT64, Fi.FI_UINT64, Fi.FI_DOUBLE, Fi.FI_FLOAT_COMPLEX -> 8;
            case Fi.FI_DOUBLE_COMPLEX -> 16;
            default -> 0;
        };
    }

    /** Whether fi_atomic(3) defines {@code op} on {@code datatype} at all (integers, reals, complex). */
    static boolean defined(int datatype, int op) {
        boolean integer = datatype <= Fi.FI_UINT64;
        boolean complex = datatype == Fi.FI_FLOAT_COMPLEX || datatype == Fi.FI_DOUBLE_COMPLEX;
        return switch (op) {
            case Fi.FI_BOR, Fi.FI_BAND, Fi.FI_BXOR, Fi.FI_MSWAP -> integer;
            case Fi.FI_MIN, Fi.FI_MAX, Fi.FI_CSWAP_LE, Fi.FI_CSWAP_LT, Fi.FI_CSWAP_GE, Fi.FI_CSWAP_GT -> !complex;
            default -> true;
        };
    }
}
