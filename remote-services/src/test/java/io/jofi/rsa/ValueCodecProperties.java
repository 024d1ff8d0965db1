package io.jofi.rsa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.rsa.wire.AdmittedTypes;
import io.jofi.rsa.wire.CallDescriptor;
import io.jofi.rsa.wire.MessageBuffer;
import io.jofi.rsa.wire.ValueCodec;
import io.jofi.rsa.wire.ValueDecoder;
import java.io.IOException;
import java.io.StreamCorruptedException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

/** The compact codec: every supported value reads back equal, several in a row, and a cut message is an error. */
class ValueCodecProperties {
    private final ValueDecoder decoder = new ValueDecoder(Echo.class.getClassLoader(), new AdmittedTypes(Echo.class));

    private ByteBuffer encode(Object... values) throws IOException {
        MessageBuffer out = new MessageBuffer(16); // tiny on purpose: every value makes it grow
        for (Object v : values) {
            ValueCodec.write(out, v);
        }
        return out.flip().position(CallDescriptor.HEADER);
    }

    @Property
    void scalarsAndStringsRoundTrip(@ForAll int i, @ForAll long l, @ForAll double d, @ForAll float f, @ForAll short s,
                                    @ForAll byte b, @ForAll char c, @ForAll boolean z, @ForAll String text)
            throws IOException {
        ByteBuffer in = encode(i, l, d, f, s, b, c, z, text, null);
        List<Object> read = new ArrayList<>();
        while (in.hasRemaining()) {
            read.add(decoder.read(in));
        }
        assertEquals(Arrays.asList(i, l, d, f, s, b, c, z, text, null), read);
    }

    @Property
    void arraysRoundTrip(@ForAll byte[] bytes, @ForAll int[] ints, @ForAll long[] longs, @ForAll double[] doubles,
                         @ForAll char[] chars, @ForAll boolean[] bools, @ForAll String[] strings,
                         @ForAll @Size(max = 5) byte[][] chunks) throws IOException {
        ByteBuffer in = encode(bytes, ints, longs, doubles, chars, bools, strings, chunks, ByteBuffer.wrap(bytes));
        assertArrayEquals(bytes, (byte[]) decoder.read(in));
        assertArrayEquals(ints, (int[]) decoder.read(in));
        assertArrayEquals(longs, (long[]) decoder.read(in));
        assertArrayEquals(doubles, (double[]) decoder.read(in));
        assertArrayEquals(chars, (char[]) decoder.read(in));
        assertArrayEquals(bools, (boolean[]) decoder.read(in));
        assertArrayEquals(strings, (String[]) decoder.read(in));
        assertArrayEquals(chunks, (byte[][]) decoder.read(in));
        assertEquals(ByteBuffer.wrap(bytes), decoder.read(in));
    }

    @Property
    void aCutMessageIsAnErrorNeverAWrongValue(@ForAll @Size(min = 1, max = 200) byte[] bytes, @ForAll String text)
            throws IOException {
        ByteBuffer whole = encode(bytes, text);
        int cut = CallDescriptor.HEADER + whole.remaining() / 2;
        ByteBuffer in = whole.limit(cut);
        try {
            decoder.read(in);
            decoder.read(in);
            throw new AssertionError("a cut message decoded");
        } catch (StreamCorruptedException expected) {
            // the length prefix points past the end
        }
    }
}
