package io.jofi.provider.tcp.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jofi.Addresses;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The RDM hello's layout, byte for byte, and its decoder against bad input. */
class RdmHelloDescriptorTest {
    private static final byte[] NAME4 = Addresses.toSockaddr(new InetSocketAddress("127.0.0.1", 0x1234));
    private static final byte[] NAME6 = Addresses.toSockaddr(new InetSocketAddress("::1", 9228));

    @Test
    void helloIsMagicVersionKindLengthThenTheName() {
        byte[] h = RdmHelloDescriptor.encode(RdmHelloDescriptor.KIND_HELLO, NAME4);
        assertEquals("4a52444d 01 01 0010".replace(" ", "") + Hex.of(NAME4), Hex.of(h));
        assertEquals(RdmHelloDescriptor.KIND_HELLO, RdmHelloDescriptor.kind(h, h.length));
        assertArrayEquals(NAME4, RdmHelloDescriptor.name(h, h.length));
        byte[] h6 = RdmHelloDescriptor.encode(RdmHelloDescriptor.KIND_HELLO, NAME6);
        assertEquals(RdmHelloDescriptor.MAX_LENGTH, h6.length);
        assertArrayEquals(NAME6, RdmHelloDescriptor.name(h6, h6.length));
    }

    @Test
    void rejectCarriesNoName() {
        byte[] r = RdmHelloDescriptor.encode(RdmHelloDescriptor.KIND_REJECT_CROSSED, null);
        assertEquals("4a52444d01020000", Hex.of(r));
        assertEquals(RdmHelloDescriptor.KIND_REJECT_CROSSED, RdmHelloDescriptor.kind(r, r.length));
        assertEquals(0, RdmHelloDescriptor.name(r, r.length).length);
    }

    @Test
    void badBytesAreNotAHello() {
        byte[] h = RdmHelloDescriptor.encode(RdmHelloDescriptor.KIND_HELLO, NAME4);
        for (int len = 0; len < h.length; len++) {
            assertEquals(RdmHelloDescriptor.NOT_A_HELLO, RdmHelloDescriptor.kind(h, len), "prefix of " + len);
        }
        assertEquals(RdmHelloDescriptor.NOT_A_HELLO, RdmHelloDescriptor.kind(null, 0));
        assertEquals(RdmHelloDescriptor.NOT_A_HELLO, RdmHelloDescriptor.kind(new byte[3], 8), "length beyond the array");
        byte[] magic = h.clone();
        magic[0] = 'X';
        assertEquals(RdmHelloDescriptor.NOT_A_HELLO, RdmHelloDescriptor.kind(magic, magic.length));
        byte[] version = h.clone();
        version[RdmHelloDescriptor.VERSION_OFFSET] = 2;
        assertEquals(RdmHelloDescriptor.NOT_A_HELLO, RdmHelloDescriptor.kind(version, version.length));
        byte[] longer = Arrays.copyOf(h, h.length + 1);
        assertEquals(RdmHelloDescriptor.NOT_A_HELLO, RdmHelloDescriptor.kind(longer, longer.length), "trailing byte");
        byte[] huge = h.clone();
        huge[RdmHelloDescriptor.NAME_LENGTH_OFFSET] = (byte) 0xFF;
        assertEquals(RdmHelloDescriptor.NOT_A_HELLO, RdmHelloDescriptor.kind(huge, huge.length));
        assertThrows(IllegalArgumentException.class,
                () -> RdmHelloDescriptor.encode(RdmHelloDescriptor.KIND_HELLO, new byte[29]));
    }

    @Test
    void randomBytesNeverThrow() {
        Random r = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            byte[] b = new byte[r.nextInt(48)];
            r.nextBytes(b);
            if (i % 2 == 0 && b.length >= 8) {
                b[0] = 0x4a;
                b[1] = 0x52;
                b[2] = 0x44;
                b[3] = 0x4d;
                b[4] = 1;
            }
            int kind = RdmHelloDescriptor.kind(b, b.length);
            if (kind != RdmHelloDescriptor.NOT_A_HELLO) {
                assertEquals(b.length - RdmHelloDescriptor.NAME_OFFSET, RdmHelloDescriptor.name(b, b.length).length);
            }
        }
    }
}
