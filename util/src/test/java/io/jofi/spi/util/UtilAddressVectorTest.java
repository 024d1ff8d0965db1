package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.AddrFormat;
import io.jofi.Addresses;
import io.jofi.AvAttr;
import io.jofi.AvType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.FidClass;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** fi_av(3) semantics of {@link UtilAddressVector}, asynchronous mode through a real {@link UtilEventQueue}. */
class UtilAddressVectorTest {
    private static final AddressResolver INET = new InetAddressResolver(AddrFormat.SOCKADDR_IN);

    private static byte[] ip4(int lastByte, int port) throws Exception {
        return Addresses.toSockaddr(new InetSocketAddress(InetAddress.getByAddress(
                new byte[] {10, 0, 0, (byte) lastByte}), port));
    }

    private static UtilAddressVector av(AvType type) throws FabricException {
        return new UtilAddressVector(new AvAttr().type(type), "av-ctx", AddrFormat.SOCKADDR_IN, INET);
    }

    private static UtilAddressVector asyncAv(UtilEventQueue eq) throws FabricException {
        UtilAddressVector av = new UtilAddressVector(new AvAttr().type(AvType.TABLE).flags(Fi.FI_EVENT), null,
                AddrFormat.SOCKADDR_IN, INET);
        av.bind(eq, 0);
        return av;
    }

    @Test
    void openValidatesAttributesAndFillsInTheType() throws Exception {
        UtilAddressVector av = new UtilAddressVector(null, null, AddrFormat.SOCKADDR_IN, INET);
        assertEquals(AvType.TABLE, av.attr().type());
        assertEquals(FidClass.AV, av.fidClass());
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> new UtilAddressVector(new AvAttr().flags(Fi.FI_MORE), null, AddrFormat.SOCKADDR_IN, INET)).errno());
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> new UtilAddressVector(new AvAttr().count(-1), null, AddrFormat.SOCKADDR_IN, INET)).errno());
        assertEquals(Errno.ENOSYS, assertThrows(FabricException.class,
                () -> new UtilAddressVector(new AvAttr().name("shared"), null, AddrFormat.SOCKADDR_IN, INET)).errno());
        assertEquals(Errno.ENOSYS, assertThrows(FabricException.class,
                () -> new UtilAddressVector(new AvAttr().rxCtxBits(4), null, AddrFormat.SOCKADDR_IN, INET)).errno());
    }

    @Test
    void tableAddressesAreIndexesInInsertOrderAndRemovedOnesAreNotReused() throws Exception {
        UtilAddressVector av = av(AvType.TABLE);
        long[] out = new long[3];
        assertEquals(3, av.insert(new byte[][] {ip4(1, 1000), ip4(2, 1000), ip4(3, 1000)}, out, 0, null));
        assertArrayEquals(new long[] {0, 1, 2}, out);
        assertEquals(0, av.remove(new long[] {1}, 0));
        long[] more = new long[2];
        assertEquals(2, av.insert(new byte[][] {ip4(4, 1000), ip4(5, 1000)}, more, Fi.FI_MORE, null));
        assertArrayEquals(new long[] {3, 4}, more, "slot 1 stays unused");
        assertNull(av.lookup(1));
        assertArrayEquals(ip4(4, 1000), av.lookup(3));
        assertEquals(4, av.count());
    }

    @Test
    void onePeerInsertReturnsItsFiAddrAndThrowsTheErrnoOfARefusal() throws Exception {
        UtilAddressVector av = av(AvType.TABLE);
        assertEquals(0, av.insert(ip4(1, 1000)));
        assertEquals(1, av.insert(ip4(2, 1000)));
        assertArrayEquals(ip4(2, 1000), av.lookup(1));
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> av.insert(new byte[3])).errno());
        assertEquals(2, av.count(), "a refused address changes nothing");
        av.close();
        assertEquals(Errno.EBADF, assertThrows(FabricException.class, () -> av.insert(ip4(3, 1000))).errno());
    }

    @Test
    void tableGrowsBeyondItsInitialCapacity() throws Exception {
        UtilAddressVector av = av(AvType.TABLE);
        for (int i = 0; i < 1000; i++) {
            long[] out = new long[1];
            assertEquals(1, av.insert(new byte[][] {ip4(i & 0xFF, 1 + i)}, out, 0, null));
            assertEquals(i, out[0]);
        }
        for (int i = 0; i < 1000; i++) {
            assertArrayEquals(ip4(i & 0xFF, 1 + i), av.addressOf(i));
        }
    }

    @Test
    void mapAddressesAreOpaqueAndStaleValuesNeverResolve() throws Exception {
        UtilAddressVector av = av(AvType.MAP);
        long[] out = new long[2];
        assertEquals(2, av.insert(new byte[][] {ip4(1, 7), ip4(2, 7)}, out, 0, null));
        for (long a : out) {
            assertNotEquals(Fi.FI_ADDR_NOTAVAIL, a);
            assertTrue(a > 1, "not a plain index: " + a);
        }
        assertNotEquals(out[0], out[1]);
        assertArrayEquals(ip4(2, 7), av.lookup(out[1]));
        assertNull(av.lookup(0));
        assertNull(av.lookup(1));

        long old = out[0];
        assertEquals(0, av.remove(new long[] {old}, 0));
        long[] again = new long[1];
        assertEquals(1, av.insert(new byte[][] {ip4(3, 7)}, again, 0, null));
        assertNotEquals(old, again[0], "a reused slot gets a new value");
        assertNull(av.lookup(old), "the stale value does not name the new peer");
        assertEquals(-Errno.ENOENT, av.remove(new long[] {old}, 0));
        assertArrayEquals(ip4(3, 7), av.lookup(again[0]));
    }

    @Test
    void invalidEntriesGetNotAvailAndAreCountedOut() throws Exception {
        UtilAddressVector av = av(AvType.TABLE);
        byte[] ipv6 = Addresses.toSockaddr(new InetSocketAddress(InetAddress.getByName("::1"), 80));
        byte[] wildcard = Addresses.toSockaddr(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 80));
        byte[][] addrs = {ip4(1, 80), null, new byte[0], ipv6, wildcard, ip4(2, 0), ip4(3, 80)};
        long[] out = new long[addrs.length];
        int[] errs = new int[addrs.length];
        assertEquals(2, av.insert(addrs, out, Fi.FI_SYNC_ERR, errs));
        assertArrayEquals(new long[] {0, Fi.FI_ADDR_NOTAVAIL, Fi.FI_ADDR_NOTAVAIL, Fi.FI_ADDR_NOTAVAIL,
                Fi.FI_ADDR_NOTAVAIL, Fi.FI_ADDR_NOTAVAIL, 1}, out);
        int e = Errno.EINVAL;
        assertArrayEquals(new int[] {0, e, e, e, e, e, 0}, errs);
    }

    @Test
    void badInsertArgumentsChangeNothing() throws Exception {
        UtilAddressVector av = av(AvType.TABLE);
        byte[][] one = {ip4(1, 80)};
        assertEquals(-Errno.EINVAL, av.insert(null, null, 0, null));
        assertEquals(-Errno.EINVAL, av.insert(new byte[][] {ip4(1, 80), ip4(2, 80)}, new long[1], 0, null));
        assertEquals(-Errno.EINVAL, av.insert(one, null, Fi.FI_PEEK, null));
        assertEquals(-Errno.EINVAL, av.insert(one, null, Fi.FI_SYNC_ERR, null), "FI_SYNC_ERR needs an int[] context");
        assertEquals(-Errno.EINVAL, av.insert(one, null, Fi.FI_SYNC_ERR, new int[0]));
        assertEquals(0, av.count());
        assertNull(av.lookup(0));
        assertEquals(1, av.insert(one, null, 0, null), "null fiAddrs is allowed");
    }

    @Test
    void insertCopiesTheCallersBytes() throws Exception {
        UtilAddressVector av = av(AvType.TABLE);
        byte[] a = ip4(1, 80);
        av.insert(new byte[][] {a}, null, 0, null);
        a[5] = 99;
        assertArrayEquals(ip4(1, 80), av.lookup(0));
        byte[] looked = av.lookup(0);
        looked[5] = 77;
        assertArrayEquals(ip4(1, 80), av.lookup(0), "lookup returns a copy");
        assertNotSame(av.lookup(0), av.lookup(0));
        assertSame(av.addressOf(0), av.addressOf(0), "the provider's view is not copied");
    }

    @Test
    void removeIsAllOrNothing() throws Exception {
        UtilAddressVector av = av(AvType.TABLE);
        av.insert(new byte[][] {ip4(1, 80), ip4(2, 80), ip4(3, 80)}, null, 0, null);
        assertEquals(-Errno.ENOENT, av.remove(new long[] {0, 7}, 0));
        assertEquals(-Errno.ENOENT, av.remove(new long[] {1, 1}, 0), "named twice");
        assertEquals(-Errno.ENOENT, av.remove(new long[] {Fi.FI_ADDR_NOTAVAIL}, 0));
        assertEquals(-Errno.EINVAL, av.remove(new long[] {0}, Fi.FI_MORE));
        assertEquals(-Errno.EINVAL, av.remove(null, 0));
        assertEquals(3, av.count());
        assertEquals(0, av.remove(new long[] {0, 2}, 0));
        assertNull(av.lookup(0));
        assertNull(av.lookup(2));
        assertArrayEquals(ip4(2, 80), av.lookup(1));
        assertEquals(-Errno.ENOENT, av.remove(new long[] {0}, 0), "already removed");
    }

    @Test
    void reverseLookupFindsTheOldestLiveEntry() throws Exception {
        UtilAddressVector av = av(AvType.TABLE);
        av.insert(new byte[][] {ip4(1, 80), ip4(2, 80), ip4(1, 80)}, null, 0, null);
        assertEquals(0, av.fiAddrOf(ip4(1, 80)));
        assertEquals(1, av.fiAddrOf(ip4(2, 80)));
        assertEquals(Fi.FI_ADDR_NOTAVAIL, av.fiAddrOf(ip4(9, 80)));
        assertEquals(Fi.FI_ADDR_NOTAVAIL, av.fiAddrOf(null));
        av.remove(new long[] {0}, 0);
        assertEquals(2, av.fiAddrOf(ip4(1, 80)), "the duplicate takes over");
        av.remove(new long[] {2}, 0);
        assertEquals(Fi.FI_ADDR_NOTAVAIL, av.fiAddrOf(ip4(1, 80)));
    }

    @Test
    void insertSvcResolvesNumericHostsAndTextAddresses() throws Exception {
        UtilAddressVector av = av(AvType.TABLE);
        long[] out = new long[1];
        assertEquals(1, av.insertSvc("10.0.0.1", "4242", out, 0, null));
        assertArrayEquals(ip4(1, 4242), av.lookup(out[0]));
        assertEquals(1, av.insertSvc("fi_sockaddr_in://10.0.0.2:99", null, out, 0, null));
        assertArrayEquals(ip4(2, 99), av.lookup(out[0]));
        assertEquals(-Errno.EINVAL, av.insertSvc("10.0.0.1", "http-ish", out, 0, null));
        assertEquals(Fi.FI_ADDR_NOTAVAIL, out[0]);
        assertEquals(-Errno.EINVAL, av.insertSvc(null, "1", out, 0, null));
        assertEquals(-Errno.EINVAL, av.insertSvc("0.0.0.0", "1", out, 0, null), "a wildcard is not a peer");
        assertEquals("fi_sockaddr_in://10.0.0.1:4242", av.straddr(av.lookup(0)));
        UtilAddressVector noResolver = new UtilAddressVector(null, null, AddrFormat.UNSPEC, null);
        assertEquals(-Errno.ENOSYS, noResolver.insertSvc("10.0.0.1", "1", out, 0, null));
        assertEquals(1, noResolver.insert(new byte[][] {{1, 2, 3}}, out, 0, null), "UNSPEC takes any bytes");
    }

    @Test
    void asynchronousInsertReportsErrorsThenCompletion() throws Exception {
        UtilEventQueue eq = new UtilEventQueue(new EqAttr(), null);
        UtilAddressVector av = asyncAv(eq);
        Object ctx = new Object();
        long[] out = new long[3];
        assertEquals(0, av.insert(new byte[][] {ip4(1, 80), new byte[] {1}, ip4(3, 80)}, out, 0, ctx));
        assertArrayEquals(new long[] {0, Fi.FI_ADDR_NOTAVAIL, 1}, out);

        EqEntry entry = new EqEntry();
        assertEquals(-Errno.EAVAIL, eq.read(entry, 0));
        EqErrEntry err = new EqErrEntry();
        assertEquals(1, eq.readErr(err, 0));
        assertEquals(Errno.EINVAL, err.err());
        assertEquals(1, err.data(), "the failed entry's index");
        assertSame(av, err.fid());
        assertSame(ctx, err.context());

        assertEquals(1, eq.read(entry, 0));
        assertEquals(Fi.FI_AV_COMPLETE, entry.event());
        assertSame(av, entry.fid());
        assertSame(ctx, entry.context());
        assertEquals(2, entry.data(), "number inserted");
        assertEquals(-Errno.EAGAIN, eq.read(entry, 0));
    }

    @Test
    void asynchronousInsertSvcReportsAResolutionFailureAsAnErrorEvent() throws Exception {
        UtilEventQueue eq = new UtilEventQueue(new EqAttr(), null);
        UtilAddressVector av = asyncAv(eq);
        long[] out = new long[1];
        assertEquals(0, av.insertSvc("10.0.0.1", "70000", out, 0, "svc"));
        assertEquals(Fi.FI_ADDR_NOTAVAIL, out[0]);
        EqErrEntry err = new EqErrEntry();
        assertEquals(1, eq.readErr(err, 0));
        assertEquals(Errno.EINVAL, err.err());
        assertEquals(0, err.data());
        EqEntry entry = new EqEntry();
        assertEquals(1, eq.read(entry, 0));
        assertEquals(Fi.FI_AV_COMPLETE, entry.event());
        assertEquals(0, entry.data());
        assertEquals("svc", entry.context());
        assertEquals(0, av.insertSvc("10.0.0.1", "80", out, 0, "svc2"));
        assertEquals(1, eq.read(entry, 0));
        assertEquals(1, entry.data());
        assertArrayEquals(ip4(1, 80), av.lookup(out[0]));
    }

    @Test
    void asynchronousWithoutABoundEqIsENOEQ() throws Exception {
        UtilAddressVector av = new UtilAddressVector(new AvAttr().flags(Fi.FI_EVENT), null, AddrFormat.SOCKADDR_IN, INET);
        assertTrue(av.isAsync());
        assertEquals(-Errno.ENOEQ, av.insert(new byte[][] {ip4(1, 80)}, new long[1], 0, null));
        assertEquals(-Errno.ENOEQ, av.insertSvc("10.0.0.1", "80", new long[1], 0, null));
        assertEquals(0, av.count());
        UtilEventQueue eq = new UtilEventQueue(null, null);
        av.bind(eq, 0);
        assertEquals(-Errno.EINVAL, av.insert(new byte[][] {ip4(1, 80)}, null, Fi.FI_SYNC_ERR, new int[1]),
                "FI_SYNC_ERR is for synchronous inserts");
    }

    @Test
    void boundEqCannotBeClosedUntilTheAvIs() throws Exception {
        UtilEventQueue eq = new UtilEventQueue(null, null);
        UtilAddressVector av = asyncAv(eq);
        FabricException busy = assertThrows(FabricException.class, eq::close);
        assertEquals(Errno.EBUSY, busy.errno());
        assertTrue(eq.isOpen(), "nothing changed");
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> av.bind(eq, 0)).errno(), "bound already");
        av.close();
        eq.close();
        assertEquals(-Errno.EBADF, av.insert(new byte[][] {ip4(1, 80)}, null, 0, null));
        assertNull(av.lookup(0));
    }

    @Test
    void bindValidatesItsArguments() throws Exception {
        UtilAddressVector av = av(AvType.TABLE);
        UtilEventQueue eq = new UtilEventQueue(null, null);
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> av.bind(eq, Fi.FI_REG_MR)).errno());
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> av.bind(null, 0)).errno());
        eq.close();
        assertEquals(Errno.EBADF, assertThrows(FabricException.class, () -> av.bind(eq, 0)).errno(), "closed EQ");
        assertEquals(0, eq.bindCount());
    }

    @Test
    void endpointsRetainTheAv() throws Exception {
        UtilAddressVector av = av(AvType.TABLE);
        av.retain(); // as an endpoint's bind does
        assertEquals(Errno.EBUSY, assertThrows(FabricException.class, av::close).errno());
        av.release();
        av.close();
    }

    @Test
    void departedAvAnswersENODEV() throws Exception {
        UtilAddressVector av = av(AvType.TABLE);
        av.insert(new byte[][] {ip4(1, 80)}, null, 0, null);
        av.depart();
        assertEquals(-Errno.ENODEV, av.insert(new byte[][] {ip4(2, 80)}, null, 0, null));
        assertEquals(-Errno.ENODEV, av.remove(new long[] {0}, 0));
        assertEquals(Errno.ENODEV, assertThrows(FabricException.class,
                () -> av.bind(new UtilEventQueue(null, null), 0)).errno());
        av.close();
    }

    @Test
    void concurrentReadersSeeEveryPublishedAddress() throws Exception {
        UtilAddressVector av = av(AvType.TABLE);
        int n = 5000;
        byte[][] expected = new byte[n][];
        for (int i = 0; i < n; i++) {
            expected[i] = ip4(i & 0xFF, 1 + (i >> 8));
        }
        AtomicInteger published = new AtomicInteger();
        AtomicInteger wrongAt = new AtomicInteger(-1);
        Thread reader = new Thread(() -> {
            // every fi_addr the writer has returned must resolve to its address, through growth
            int upTo;
            do {
                upTo = published.get();
                for (int i = 0; i < upTo; i++) {
                    if (!Arrays.equals(expected[i], av.addressOf(i))) {
                        wrongAt.set(i);
                        return;
                    }
                }
            } while (upTo < n);
        });
        reader.start();
        for (int i = 0; i < n && wrongAt.get() < 0; i++) {
            av.insert(new byte[][] {expected[i]}, null, 0, null);
            published.set(i + 1);
        }
        published.set(n);
        reader.join(10_000);
        assertTrue(!reader.isAlive(), "reader finished");
        assertEquals(-1, wrongAt.get(), "reader saw a wrong address");
    }
}
