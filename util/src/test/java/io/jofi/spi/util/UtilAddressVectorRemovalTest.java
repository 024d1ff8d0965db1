package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.AddrFormat;
import io.jofi.Addresses;
import io.jofi.AvAttr;
import io.jofi.AvType;
import io.jofi.Errno;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every util address vector is a {@link PeerRemovalSource}: the layers bound to it hear of the
 * addresses a successful {@code fi_av_remove} took out (the rxm layer closes its connections to
 * them), once per listener, and nothing of a remove that failed.
 */
class UtilAddressVectorRemovalTest {
    private static byte[] ip4(int lastByte, int port) throws Exception {
        return Addresses.toSockaddr(new InetSocketAddress(InetAddress.getByAddress(
                new byte[] {10, 0, 0, (byte) lastByte}), port));
    }

    @Test
    void aSuccessfulRemoveTellsEachListenerTheRemovedAddressesInOrder() throws Exception {
        UtilAddressVector av = new UtilAddressVector(new AvAttr().type(AvType.MAP), null, AddrFormat.SOCKADDR_IN,
                new InetAddressResolver(AddrFormat.SOCKADDR_IN));
        long[] fiAddrs = new long[3];
        assertEquals(3, av.insert(new byte[][] {ip4(1, 80), ip4(2, 80), ip4(3, 80)}, fiAddrs, 0, null));
        List<byte[][]> heard = new ArrayList<>();
        PeerRemovalSource.Listener listener = heard::add;
        PeerRemovalSource source = av;
        source.addRemovalListener(listener);
        source.addRemovalListener(listener); // once, however often added

        assertEquals(-Errno.ENOENT, av.remove(new long[] {fiAddrs[0], fiAddrs[0]}, 0));
        assertEquals(0, heard.size(), "a failed remove tells nothing");

        assertEquals(0, av.remove(new long[] {fiAddrs[2], fiAddrs[0]}, 0));
        assertEquals(1, heard.size());
        assertArrayEquals(new byte[][] {ip4(3, 80), ip4(1, 80)}, heard.get(0));

        source.removeRemovalListener(listener);
        assertEquals(0, av.remove(new long[] {fiAddrs[1]}, 0));
        assertEquals(1, heard.size(), "a removed listener hears nothing more");
    }
}
