package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.AddrFormat;
import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.AvType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.FidClass;
import io.jofi.Info;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Address vectors (fi_av): synchronous insert, lookup, remove and straddr for MAP and TABLE
 * AVs; asynchronous insert completing with FI_AV_COMPLETE on a bound EQ, per-entry errors
 * with {@code data()} = index; identity of the AV and the insert context in events.
 */
public abstract class AvConformance extends ProviderTest {
    private AddrFormat format() {
        return fx.domainInfo().addrFormat();
    }

    private byte[] addr(int i) {
        return SampleAddresses.of(format(), fx.provider(), i);
    }

    private byte[][] addrs(int n) {
        byte[][] a = new byte[n][];
        for (int i = 0; i < n; i++) {
            a[i] = addr(i);
        }
        return a;
    }

    private AddressVector open(AvType type, long flags) throws FabricException {
        AvType offered = fx.domainInfo().domainAttr().avType();
        Assumptions.assumeTrue(offered == AvType.UNSPEC || offered == type,
                "provider " + fx.provider() + " lacks " + type.fiName() + " (it offers " + offered.fiName() + ")");
        return fx.openAv(new AvAttr().type(type).flags(flags), "av-under-test");
    }

    /** fi_av_insert: returns the number inserted and one distinct fi_addr_t each; TABLE numbers them 0, 1, 2, ... */
    @ParameterizedTest
    @EnumSource(value = AvType.class, names = {"MAP", "TABLE"})
    void insertGivesDistinctAddresses(AvType type) throws FabricException {
        AddressVector av = open(type, 0);
        assertEquals(FidClass.AV, av.fidClass());
        long[] fi = new long[4];
        assertEquals(4, av.insert(addrs(4), fi, 0, null), "insert of 4 addresses");
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            assertNotEquals(Fi.FI_ADDR_NOTAVAIL, fi[i], "fi_addr of address " + i);
            assertTrue(seen.add(fi[i]), "fi_addr values must be distinct: " + Arrays.toString(fi));
            if (type == AvType.TABLE) {
                assertEquals(i, fi[i], "a TABLE AV numbers addresses in insert order");
            }
        }
        assertEquals(1, av.insert(new byte[][] {addr(9)}, null, 0, null), "insert with fiAddrs null");
    }

    /** fi_av_lookup returns the inserted address; an unknown fi_addr_t gives null. */
    @ParameterizedTest
    @EnumSource(value = AvType.class, names = {"MAP", "TABLE"})
    void lookupReturnsTheInsertedAddress(AvType type) throws FabricException {
        AddressVector av = open(type, 0);
        byte[][] a = addrs(3);
        long[] fi = new long[3];
        assertEquals(3, av.insert(a, fi, 0, null), "insert");
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(a[i], av.lookup(fi[i]), "lookup of address " + i);
        }
        if (type == AvType.TABLE) {
            assertNull(av.lookup(1000), "lookup of an index never inserted");
        }
    }

    /** fi_av_remove: the address is gone; removing an unknown fi_addr_t is -ENOENT. */
    @ParameterizedTest
    @EnumSource(value = AvType.class, names = {"MAP", "TABLE"})
    void removeForgetsTheAddress(AvType type) throws FabricException {
        AddressVector av = open(type, 0);
        long[] fi = new long[2];
        assertEquals(2, av.insert(addrs(2), fi, 0, null), "insert");
        assertEquals(0, av.remove(new long[] {fi[0]}, 0), "remove");
        assertNull(av.lookup(fi[0]), "lookup of a removed address");
        assertArrayEquals(addr(1), av.lookup(fi[1]), "the other address stays");
        assertEquals(-Errno.ENOENT, av.remove(new long[] {fi[0]}, 0), "removing it again");
    }

    /** fi_av_straddr formats an address for people. */
    @Test
    void straddrFormatsForPeople() throws FabricException {
        AddressVector av = open(AvType.MAP, 0);
        String s = av.straddr(addr(0));
        assertNotNull(s, "straddr");
        assertFalse(s.isBlank(), "straddr must say something");
    }

    /** fi_av_insert with a bad entry: the good ones are inserted, the bad one gets FI_ADDR_NOTAVAIL. */
    @Test
    void badEntryFailsAlone() throws FabricException {
        AddressVector av = open(AvType.MAP, 0);
        long[] fi = new long[3];
        int rc = av.insert(new byte[][] {addr(0), new byte[0], addr(2)}, fi, 0, null);
        assertEquals(2, rc, "insert of two good addresses and an empty one returns the number inserted");
        assertEquals(Fi.FI_ADDR_NOTAVAIL, fi[1], "the bad entry's fi_addr");
        assertArrayEquals(addr(2), av.lookup(fi[2]), "the good entry after the bad one is there");
    }

    /**
     * docs/API.md / fi_av(3): an AV opened with FI_EVENT and bound to an EQ completes an insert with
     * FI_AV_COMPLETE: fid the AV, context the insert's, data the number inserted; the
     * addresses are then in the AV.
     */
    @Test
    void asynchronousInsertCompletesOnTheEq() throws FabricException {
        EventQueue eq = fx.openEq(new EqAttr(), "eq");
        AddressVector av = open(AvType.MAP, Fi.FI_EVENT);
        av.bind(eq, 0);
        Object ctx = new Object();
        long[] fi = new long[3];
        byte[][] a = addrs(3);
        int rc = av.insert(a, fi, 0, ctx);
        assertTrue(rc == 0 || rc == 3, "an asynchronous insert returns 0 (or the count): " + rc);
        EqEntry ev = new EqEntry();
        await().event(eq, ev, Fi.FI_AV_COMPLETE, "FI_AV_COMPLETE for the insert");
        assertSame(av, ev.fid(), "FI_AV_COMPLETE's fid is the AV");
        assertSame(ctx, ev.context(), "FI_AV_COMPLETE's context is the insert's");
        assertEquals(3, ev.data(), "FI_AV_COMPLETE's data is the number inserted");
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(a[i], av.lookup(fi[i]), "lookup after the asynchronous insert, address " + i);
        }
        fx.close(av);
    }

    /**
     * docs/API.md / fi_av(3): with FI_EVENT, a failed entry is an error event whose data() is its
     * index, and FI_AV_COMPLETE counts only the inserted ones.
     */
    @Test
    void asynchronousInsertReportsFailedEntriesByIndex() throws FabricException {
        EventQueue eq = fx.openEq(new EqAttr(), "eq");
        AddressVector av = open(AvType.MAP, Fi.FI_EVENT);
        av.bind(eq, 0);
        Object ctx = new Object();
        av.insert(new byte[][] {addr(0), new byte[0], addr(2)}, new long[3], 0, ctx);
        EqEntry ev = new EqEntry();
        await().until(() -> {
            int rc = eq.read(ev, Fi.FI_PEEK);
            if (rc == 1) {
                fail("the insert completed (" + ev + ") before its failed entry was reported");
            }
            return rc == -Errno.EAVAIL;
        }, "the error event of the bad entry");
        assertEquals(-Errno.EAVAIL, eq.read(ev, 0), "an error at the head: read is -EAVAIL until readErr takes it (R1)");
        EqErrEntry err = new EqErrEntry();
        assertEquals(1, eq.readErr(err, 0), "readErr of the failed entry");
        assertEquals(1, err.data(), "the error event's data is the failed entry's index");
        assertSame(av, err.fid(), "the error event's fid is the AV");
        assertTrue(err.err() > 0, "the error event has an error code: " + err);
        await().event(eq, ev, Fi.FI_AV_COMPLETE, "FI_AV_COMPLETE after the error");
        assertEquals(2, ev.data(), "FI_AV_COMPLETE counts the inserted entries");
        assertSame(ctx, ev.context(), "context");
        fx.close(av);
    }

    /** R9: closing an AV an (RDM) endpoint is bound to throws EBUSY and changes nothing. */
    @Test
    void closeWhileBoundToAnEndpointIsEbusy() throws FabricException {
        Info info = fx.require(0, 0, EpType.RDM);
        AddressVector av = fx.openAv(new AvAttr().type(info.domainAttr().avType()), "av");
        long[] fi = new long[1];
        assertEquals(1, av.insert(new byte[][] {addr(0)}, fi, 0, null), "insert");
        Endpoint ep = fx.openEndpoint(info, "ep");
        ep.bind(av, 0);
        FabricException e = assertThrows(FabricException.class, av::close, "closing an AV bound to an endpoint");
        assertEquals(Errno.EBUSY, e.errno(), "closing a bound AV (R9): " + e);
        assertArrayEquals(addr(0), av.lookup(fi[0]), "the AV is unchanged by the refused close (R9)");
        fx.close(ep);
        fx.close(av);
    }

    /** fi_av_insertsvc: node and service of the socket formats resolve and insert one address. */
    @Test
    void insertSvcResolvesNumericNodeAndService() throws FabricException {
        AddrFormat f = format();
        Assumptions.assumeTrue(f == AddrFormat.SOCKADDR_IN || f == AddrFormat.SOCKADDR_IN6,
                "provider " + fx.provider() + " lacks FI_SOCKADDR_IN addressing (it uses " + f.fiName() + ")");
        AddressVector av = open(AvType.MAP, 0);
        long[] fi = {Fi.FI_ADDR_NOTAVAIL};
        String node = f == AddrFormat.SOCKADDR_IN ? "127.0.0.1" : "::1";
        assertEquals(1, av.insertSvc(node, "40123", fi, 0, null), "insertSvc");
        assertNotEquals(Fi.FI_ADDR_NOTAVAIL, fi[0], "fi_addr of the inserted service");
        assertNotNull(av.lookup(fi[0]), "lookup of the inserted service");
    }
}
