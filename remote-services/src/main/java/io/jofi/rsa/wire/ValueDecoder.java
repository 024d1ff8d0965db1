package io.jofi.rsa.wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.io.StreamCorruptedException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Reads values written by {@link ValueCodec}: compact forms directly, serialized ones through an
 * {@link ObjectInputStream} that resolves classes with the service's class loader and admits
 * only what {@link AdmittedTypes} admits. A refused class ends the decoding of that message with
 * {@link RefusedValueException}; the channel and every other call go on.
 */
public final class ValueDecoder {
    private final ClassLoader loader;
    private final AdmittedTypes admitted;

    public ValueDecoder(ClassLoader loader, AdmittedTypes admitted) {
        this.loader = loader;
        this.admitted = admitted;
    }

    /** Reads the value at {@code in}'s position and moves past it. */
    public Object read(ByteBuffer in) throws IOException {
        try {
            return readValue(in);
        } catch (java.nio.BufferUnderflowException | IndexOutOfBoundsException | NegativeArraySizeException e) {
            throw new StreamCorruptedException("a value runs past the end of its message: " + e);
        }
    }

    private Object readValue(ByteBuffer in) throws IOException {
        byte code = in.get();
        switch (code) {
            case ValueCodec.NULL:
                return null;
            case ValueCodec.BOOLEAN:
                return in.get() != 0;
            case ValueCodec.BYTE:
                return in.get();
            case ValueCodec.SHORT:
                return in.getShort();
            case ValueCodec.CHAR:
                return in.getChar();
            case ValueCodec.INT:
                return in.getInt();
            case ValueCodec.LONG:
                return in.getLong();
            case ValueCodec.FLOAT:
                return in.getFloat();
            case ValueCodec.DOUBLE:
                return in.getDouble();
            case ValueCodec.STRING:
                return readString(in, in.getInt());
            case ValueCodec.BYTES:
                return readBytes(in, in.getInt());
            case ValueCodec.BYTE_BUFFER:
                return ByteBuffer.wrap(readBytes(in, in.getInt()));
            case ValueCodec.SERIALIZED:
                return readSerialized(in, in.getInt());
            default:
                return readArray(in, code);
        }
    }

    private static Object readArray(ByteBuffer in, byte code) throws IOException {
        int n = count(in, in.getInt());
        switch (code) {
            case ValueCodec.INT_ARRAY: {
                int[] a = new int[n];
                for (int i = 0; i < n; i++) {
                    a[i] = in.getInt();
                }
                return a;
            }
            case ValueCodec.LONG_ARRAY: {
                long[] a = new long[n];
                for (int i = 0; i < n; i++) {
                    a[i] = in.getLong();
                }
                return a;
            }
            case ValueCodec.DOUBLE_ARRAY: {
                double[] a = new double[n];
                for (int i = 0; i < n; i++) {
                    a[i] = in.getDouble();
                }
                return a;
            }
            case ValueCodec.FLOAT_ARRAY: {
                float[] a = new float[n];
                for (int i = 0; i < n; i++) {
                    a[i] = in.getFloat();
                }
                return a;
            }
            case ValueCodec.SHORT_ARRAY: {
                short[] a = new short[n];
                for (int i = 0; i < n; i++) {
                    a[i] = in.getShort();
                }
                return a;
            }
            case ValueCodec.CHAR_ARRAY: {
                char[] a = new char[n];
                for (int i = 0; i < n; i++) {
                    a[i] = in.getChar();
                }
                return a;
            }
            case ValueCodec.BOOLEAN_ARRAY: {
                boolean[] a = new boolean[n];
                for (int i = 0; i < n; i++) {
                    a[i] = in.get() != 0;
                }
                return a;
            }
            case ValueCodec.STRING_ARRAY: {
                String[] a = new String[n];
                for (int i = 0; i < n; i++) {
                    int len = in.getInt();
                    a[i] = len < 0 ? null : readString(in, len);
                }
                return a;
            }
            case ValueCodec.BYTES_ARRAY: {
                byte[][] a = new byte[n][];
                for (int i = 0; i < n; i++) {
                    int len = in.getInt();
                    a[i] = len < 0 ? null : readBytes(in, len);
                }
                return a;
            }
            default:
                throw new StreamCorruptedException("unknown value code " + code);
        }
    }

    /** A count no larger than the bytes left (each element takes at least one): no huge allocation from a lie. */
    private static int count(ByteBuffer in, int n) throws StreamCorruptedException {
        if (n < 0 || n > in.remaining()) {
            throw new StreamCorruptedException("an array of " + n + " elements in " + in.remaining() + " bytes");
        }
        return n;
    }

    private static String readString(ByteBuffer in, int len) throws StreamCorruptedException {
        byte[] utf8 = readBytes(in, len);
        return new String(utf8, StandardCharsets.UTF_8);
    }

    private static byte[] readBytes(ByteBuffer in, int len) throws StreamCorruptedException {
        count(in, len);
        byte[] bytes = new byte[len];
        in.get(bytes);
        return bytes;
    }

    private Object readSerialized(ByteBuffer in, int len) throws IOException {
        count(in, len);
        ByteBuffer stream = in.slice(in.position(), len);
        in.position(in.position() + len);
        FilteredInput ois = new FilteredInput(new BufferInput(stream));
        try (ois) {
            return ois.readObject();
        } catch (ClassNotFoundException e) {
            throw new InvalidClassException("class not visible to the service's bundle: " + e.getMessage());
        } catch (InvalidClassException e) {
            if (ois.rejected != null) {
                throw new RefusedValueException(ois.rejected, e);
            }
            throw e;
        }
    }

    /** The ObjectInputStream of one value: the service's class loader and the admitted types. */
    private final class FilteredInput extends ObjectInputStream {
        /** What the filter refused, for the error message. */
        String rejected;

        FilteredInput(InputStream in) throws IOException {
            super(in);
            setObjectInputFilter(info -> {
                ObjectInputFilter.Status status = admitted.checkInput(info);
                if (status == ObjectInputFilter.Status.REJECTED && rejected == null) {
                    rejected = info.serialClass() != null ? info.serialClass().getName()
                            : "a stream over the limits (depth " + info.depth() + ", references " + info.references()
                            + ", array length " + info.arrayLength() + ")";
                }
                return status;
            });
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            try {
                return Class.forName(desc.getName(), false, loader);
            } catch (ClassNotFoundException e) {
                return super.resolveClass(desc);
            }
        }

        @Override
        protected Class<?> resolveProxyClass(String[] interfaces) throws InvalidClassException {
            throw new InvalidClassException(String.join(",", interfaces), "dynamic proxies are never admitted");
        }
    }

    /** An InputStream over a buffer's remaining bytes. */
    private static final class BufferInput extends InputStream {
        private final ByteBuffer buf;

        BufferInput(ByteBuffer buf) {
            this.buf = buf;
        }

        @Override
        public int read() {
            return buf.hasRemaining() ? buf.get() & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (!buf.hasRemaining()) {
                return -1;
            }
            int n = Math.min(len, buf.remaining());
            buf.get(b, off, n);
            return n;
        }
    }
}
