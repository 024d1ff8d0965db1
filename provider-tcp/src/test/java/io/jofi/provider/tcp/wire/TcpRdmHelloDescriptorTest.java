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
class TcpRdmHelloDescriptorTest {
    private static final byte[] NAME4 = Addresses.toSockaddr(new InetSocketAddress("127.0.0.1", 0x1234));
    private static final byte[] NAME6 = Addresses.toSockaddr(new InetSocketAddress("::1", 9228));

    @Test
    void helloIsMagicVersionKindLengthThenTheName() {
        byte[] h = TcpRdmHelloDescriptor.encode(TcpRdmHelloDescriptor.KIND_HELLO, NAME4);
        assertEquals("4a52444d 01 01 0010".replace(" ", "") + Hex.of(NAME4), Hex.of(h));
        assertEquals(TcpRdmHelloDescriptor.KIND_HELLO, TcpRdmHelloDescriptor.kind(h, h.length));
        assertArrayEquals(NAME4, TcpRdmHelloDescriptor.name(h, h.length));
        byte[] h6 = TcpRdmHelloDescriptor.encode(TcpRdmHelloDescriptor.KIND_HELLO, NAME6);
        assertEquals(TcpRdmHelloDescriptor.MAX_LENGTH, h6.length);
        assertArrayEquals(NAME6, TcpRdmHelloDescriptor.name(h6, h6.length));
    }

    @Test
    void rejectCarriesNoName() {
        byte[] r = TcpRdmHelloDescriptor.encode(TcpRdmHelloDescriptor.KIND_REJECT_CROSSED, null);
        assertEquals("4a52444d01020000", Hex.of(r));
        assertEquals(TcpRdmHelloDescriptor.KIND_REJECT_CROSSED, TcpRdmHelloDescriptor.kind(r, r.length));
        assertEquals(0, TcpRdmHelloDescriptor.name(r, r.length).length);
    }

    @Test
    void badBytesAreNotAHello() {
        byte[] h = TcpRdmHelloDescriptor.encode(TcpRdmHelloDescriptor.KIND_HELLO, NAME4);
        for (int len = 0; len < h.length; len++) {
            assertEquals(TcpRdmHelloDescriptor.NOT_A_HELLO, TcpRdmHelloDescriptor.kind(h, len), "prefix of " + len);
        }
        assertEquals(TcpRdmHelloDescriptor.NOT_A_HELLO, TcpRdmHelloDescriptor.kind(null, 0));
        assertEquals(TcpRdmHelloDescriptor.NOT_A_HELLO, TcpRdmHelloDescriptor.kind(new byte[3], 8), "length beyond the array");
        byte[] magic = h.clone();
        magic[0] = 'X';
        assertEquals(TcpRdmHelloDescriptor.NOT_A_HELLO, TcpRdmHelloDescriptor.kind(magic, magic.length));
        byte[] version = h.clone();
        version[TcpRdmHelloDescriptor.VERSION_OFFSET] = 2;
        assertEquals(TcpRdmHelloDescriptor.NOT_A_HELLO, TcpRdmHelloDescriptor.kind(version, version.length));
        byte[] longer = Arrays.copyOf(h, h.length + 1);
        assertEquals(TcpRdmHelloDescriptor.NOT_A_HELLO, TcpRdmHelloDescriptor.kind(longer, longer.length), "trailing byte");
        byte[] huge = h.clone();
        huge[TcpRdmHelloDescriptor.NAME_LENGTH_OFFSET] = (byte) 0xFF;
        assertEquals(TcpRdmHelloDescriptor.NOT_A_HELLO, TcpRdmHelloDescriptor.kind(huge, huge.length));
        assertThrows(IllegalArgumentException.class,
                () -> TcpRdmHelloDescriptor.encode(TcpRdmHelloDescriptor.KIND_HELLO, new byte[29]));
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
            int kind = TcpRdmHelloDescriptor.kind(b, b.length);
            if (kind != TcpRdmHelloDescriptor.NOT_A_HELLO) {
                assertEquals(b.length - TcpRdmHelloDescriptor.NAME_OFFSET, TcpRdmHelloDescriptor.name(b, b.length).length);
            }
        }
    }
}
