package io.jofi.rsa.wire;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Encodes and decodes the arguments and results of calls: a one-byte type code, then a compact
 * form for primitives, their boxes, {@code String}, {@code byte[]}, {@code ByteBuffer} and arrays
 * of them; Java serialization (read back through {@link ValueDecoder}'s filter) for anything
 * else.
 *
 * <pre>
 *  NULL                  code
 *  BOOLEAN..DOUBLE       code | value (1, 1, 2, 2, 4, 8, 4, 8 bytes)
 *  STRING, BYTES,
 *  BYTE_BUFFER           code | length (i32) | bytes (UTF-8 for strings)
 *  *_ARRAY               code | count (i32)  | elements (compact, no codes; strings and byte[]
 *                                              each length-prefixed, -1 for null)
 *  SERIALIZED            code | length (i32) | an ObjectOutputStream stream
 * </pre>
 * A {@code ByteBuffer} is sent from its position to its limit and arrives as a heap buffer
 * holding exactly those bytes; the sender's position and limit are not changed.
 */
public final class ValueCodec {
    static final byte NULL = 0;
    static final byte BOOLEAN = 1;
    static final byte BYTE = 2;
    static final byte SHORT = 3;
    static final byte CHAR = 4;
    static final byte INT = 5;
    static final byte LONG = 6;
    static final byte FLOAT = 7;
    static final byte DOUBLE = 8;
    static final byte STRING = 9;
    static final byte BYTES = 10;
    static final byte BYTE_BUFFER = 11;
    static final byte BOOLEAN_ARRAY = 12;
    static final byte SHORT_ARRAY = 13;
    static final byte CHAR_ARRAY = 14;
    static final byte INT_ARRAY = 15;
    static final byte LONG_ARRAY = 16;
    static final byte FLOAT_ARRAY = 17;
    static final byte DOUBLE_ARRAY = 18;
    static final byte STRING_ARRAY = 19;
    static final byte BYTES_ARRAY = 20;
    static final byte SERIALIZED = 21;

    private ValueCodec() {
    }

    /**
     * Appends {@code value} to {@code out}.
     *
     * @throws NotSerializableException when the value is neither compact nor Serializable
     */
    public static void write(MessageBuffer out, Object value) throws IOException {
        if (value == null) {
            out.ensure(1).put(NULL);
        } else if (value instanceof Integer v) {
            out.ensure(5).put(INT).putInt(v);
        } else if (value instanceof Long v) {
            out.ensure(9).put(LONG).putLong(v);
        } else if (value instanceof String v) {
            out.ensure(1).put(STRING);
            writeString(out, v);
        } else if (value instanceof byte[] v) {
            out.ensure(5 + v.length).put(BYTES).putInt(v.length).put(v);
        } else if (value instanceof ByteBuffer v) {
            int n = v.remaining();
            ByteBuffer b = out.ensure(5 + n).put(BYTE_BUFFER).putInt(n);
            b.put(b.position(), v, v.position(), n);
            b.position(b.position() + n);
        } else if (value instanceof Boolean v) {
            out.ensure(2).put(BOOLEAN).put((byte) (v ? 1 : 0));
        } else if (value instanceof Double v) {
            out.ensure(9).put(DOUBLE).putDouble(v);
        } else if (value instanceof Byte v) {
            out.ensure(2).put(BYTE).put(v);
        } else if (value instanceof Short v) {
            out.ensure(3).put(SHORT).putShort(v);
        } else if (value instanceof Character v) {
            out.ensure(3).put(CHAR).putChar(v);
        } else if (value instanceof Float v) {
            out.ensure(5).put(FLOAT).putFloat(v);
        } else if (!writeArray(out, value)) {
            writeSerialized(out, value);
        }
    }

    private static boolean writeArray(MessageBuffer out, Object value) {
        if (value instanceof int[] a) {
            ByteBuffer b = out.ensure(5 + 4 * a.length).put(INT_ARRAY).putInt(a.length);
            for (int v : a) {
                b.putInt(v);
            }
        } else if (value instanceof long[] a) {
            ByteBuffer b = out.ensure(5 + 8 * a.length).put(LONG_ARRAY).putInt(a.length);
            for (long v : a) {
                b.putLong(v);
            }
        } else if (value instanceof double[] a) {
            ByteBuffer b = out.ensure(5 + 8 * a.length).put(DOUBLE_ARRAY).putInt(a.length);
            for (double v : a) {
                b.putDouble(v);
            }
        } else if (value instanceof float[] a) {
            ByteBuffer b = out.ensure(5 + 4 * a.length).put(FLOAT_ARRAY).putInt(a.length);
            for (float v : a) {
                b.putFloat(v);
            }
        } else if (value instanceof short[] a) {
            ByteBuffer b = out.ensure(5 + 2 * a.length).put(SHORT_ARRAY).putInt(a.length);
            for (short v : a) {
                b.putShort(v);
            }
        } else if (value instanceof char[] a) {
            ByteBuffer b = out.ensure(5 + 2 * a.length).put(CHAR_ARRAY).putInt(a.length);
            for (char v : a) {
                b.putChar(v);
            }
        } else if (value instanceof boolean[] a) {
            ByteBuffer b = out.ensure(5 + a.length).put(BOOLEAN_ARRAY).putInt(a.length);
            for (boolean v : a) {
                b.put((byte) (v ? 1 : 0));
            }
        } else if (value.getClass() == String[].class) {
            String[] a = (String[]) value;
            out.ensure(5).put(STRING_ARRAY).putInt(a.length);
            for (String s : a) {
                if (s == null) {
                    out.ensure(4).putInt(-1);
                } else {
                    writeString(out, s);
                }
            }
        } else if (value.getClass() == byte[][].class) {
            byte[][] a = (byte[][]) value;
            out.ensure(5).put(BYTES_ARRAY).putInt(a.length);
            for (byte[] bytes : a) {
                if (bytes == null) {
                    out.ensure(4).putInt(-1);
                } else {
                    out.ensure(4 + bytes.length).putInt(bytes.length).put(bytes);
                }
            }
        } else {
            return false;
        }
        return true;
    }

    private static void writeString(MessageBuffer out, String s) {
        int n = s.length();
        ByteBuffer b = out.ensure(4 + n);
        int start = b.position();
        b.putInt(n);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                // not ASCII: UTF-8 through the JDK (one array); ASCII needs none
                b.position(start);
                byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
                out.ensure(4 + utf8.length).putInt(utf8.length).put(utf8);
                return;
            }
            b.put((byte) c);
        }
    }

    private static void writeSerialized(MessageBuffer out, Object value) throws IOException {
        if (!(value instanceof Serializable)) {
            throw new NotSerializableException(value.getClass().getName()
                    + " is neither a compact type nor Serializable: it cannot be sent to a remote service");
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (ObjectOutputStream oos = new ObjectOutputStream(bytes)) {
            oos.writeObject(value);
        }
        byte[] stream = bytes.toByteArray();
        out.ensure(5 + stream.length).put(SERIALIZED).putInt(stream.length).put(stream);
    }
}
