package io.jofi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * {@link Addresses}' IP literals: read as {@code inet_pton} reads them, printed as glibc's
 * {@code inet_ntop} prints them (RFC 5952 compression, {@code ::a.b.c.d} and
 * {@code ::ffff:a.b.c.d}), each printed form read back to the same bytes, and the texts
 * {@code inet_pton} refuses refused.
 */
class AddressesTest {
    private static void roundTrip(String text) {
        byte[] b = Addresses.parse(text);
        assertEquals(text, Addresses.toString(b), "printed as read");
        assertArrayEquals(b, Addresses.parse(Addresses.toString(b)), "read back to the same bytes");
    }

    @Test
    void ipv4LiteralsReadAndPrintedAsInetPtonAndNtop() throws Exception {
        roundTrip("fi_sockaddr_in://127.0.0.1:9228");
        roundTrip("fi_sockaddr_in://255.255.255.255:0");
        byte[] b = Addresses.parse("fi_sockaddr_in://10.1.2.3:80");
        assertEquals(new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 80), Addresses.fromSockaddr(b));
        for (String bad : new String[] {"fi_sockaddr_in://01.2.3.4:1", "fi_sockaddr_in://1.2.3:1",
                "fi_sockaddr_in://1.2.3.256:1", "fi_sockaddr_in://1.2.3.4.5:1", "fi_sockaddr_in://1..3.4:1"}) {
            assertThrows(IllegalArgumentException.class, () -> Addresses.parse(bad), bad);
        }
    }

    @Test
    void ipv6LiteralsCompressedAsRfc5952() throws Exception {
        roundTrip("fi_sockaddr_in6://[::1]:9228");
        roundTrip("fi_sockaddr_in6://[::]:0");
        roundTrip("fi_sockaddr_in6://[fe80::1%3]:7");
        roundTrip("fi_sockaddr_in6://[1::]:1");
        roundTrip("fi_sockaddr_in6://[2001:db8::1:0:0:1]:1"); // the longer run of zeros is compressed
        roundTrip("fi_sockaddr_in6://[2001:db8:0:1:1:1:1:1]:1"); // a single zero group is not
        roundTrip("fi_sockaddr_in6://[::ffff:1.2.3.4]:1");
        roundTrip("fi_sockaddr_in6://[::1.2.3.4]:1");
        assertEquals("fi_sockaddr_in6://[2001:db8::1]:5", Addresses.toString(Addresses.parse(
                "fi_sockaddr_in6://[2001:0DB8:0:0:0:0:0:1]:5")), "lower case, leading zeros and zero groups dropped");
        assertEquals(new InetSocketAddress(InetAddress.getByName("2001:db8::1:0:0:1"), 1),
                Addresses.fromSockaddr(Addresses.parse("fi_sockaddr_in6://[2001:db8::1:0:0:1]:1")));
        for (String bad : new String[] {"fi_sockaddr_in6://[1:::2]:1", "fi_sockaddr_in6://[1::2::3]:1",
                "fi_sockaddr_in6://[1:2:3:4:5:6:7:8:9]:1", "fi_sockaddr_in6://[12345::]:1",
                "fi_sockaddr_in6://[1:2:3:4:5:6:7]:1", "fi_sockaddr_in6://[1:]:1", "fi_sockaddr_in6://[g::]:1"}) {
            assertThrows(IllegalArgumentException.class, () -> Addresses.parse(bad), bad);
        }
    }
}
