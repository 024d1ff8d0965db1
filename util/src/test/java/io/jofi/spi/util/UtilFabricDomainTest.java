package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.AddrFormat;
import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.Counter;
import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.FidClass;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.PollAttr;
import io.jofi.PollSet;
import io.jofi.WaitAttr;
import io.jofi.WaitObj;
import io.jofi.WaitSet;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** {@link UtilFabric} and {@link UtilDomain} through a tiny provider: open, R9 close order, R15 departure, FI_MR_COMPLETE. */
class UtilFabricDomainTest {

    /** The smallest provider: domains of {@link TestDomain}, no endpoints. */
    static final class TestFabric extends UtilFabric {
        TestFabric(ProviderResources resources) {
            super(new FabricAttr().provName("testprov").name("testfab"), "fabric-ctx", resources);
        }

        @Override
        public Domain domain(Info info, Object context) throws FabricException {
            ensureOpen("domain");
            return new TestDomain(this, info, context);
        }
    }

    static final class TestDomain extends UtilDomain {
        TestDomain(UtilFabric fabric, Info info, Object context) throws FabricException {
            super(fabric, info, context);
        }

        @Override
        public Endpoint endpoint(Info info, Object context) throws FabricException {
            throw new FabricException(Errno.ENOSYS, "the test provider has no endpoints");
        }
    }

    private final ProviderResources resources = new ProviderResources();
    private final TestFabric fabric = new TestFabric(resources);

    private static Info info(long mrMode) {
        Info i = new Info().addrFormat(AddrFormat.SOCKADDR_IN);
        i.domainAttr().mrMode(mrMode);
        return i;
    }

    private static void fails(int errno, Executable call) {
        FabricException e = assertThrows(FabricException.class, call);
        assertEquals(errno, e.errno(), e.getMessage());
    }

    @Test
    void queuesItOpensAreCountedUnderItsProvider() throws Exception {
        // jofi stat and JMX: a CQ of tcp's RDM endpoints is tcp's, though UtilDomain made it
        // (the stack walk named the util layer: "util/CompletionQueue 7")
        UtilEventQueue eq = (UtilEventQueue) fabric.openEq(new EqAttr(), null);
        Domain d = fabric.domain(info(0), null);
        UtilCompletionQueue cq = (UtilCompletionQueue) d.openCq(new CqAttr(), null);
        assertTrue(eq.counters().owner().matches("testprov/EventQueue \\d+"), eq.counters().owner());
        assertTrue(cq.counters().owner().matches("testprov/CompletionQueue \\d+"), cq.counters().owner());
        cq.close();
        d.close();
        eq.close();
    }

    @Test
    void opensEveryObjectAndRecordsItInTheResources() throws Exception {
        assertEquals(1, resources.size(), "the fabric itself");
        assertEquals("testprov", fabric.providerName());
        assertEquals("testfab", fabric.attr().name());
        Object ctx = new Object();
        EventQueue eq = fabric.openEq(new EqAttr(), ctx);
        assertInstanceOf(UtilEventQueue.class, eq);
        assertSame(ctx, eq.context());
        WaitSet ws = fabric.openWaitSet(new WaitAttr());
        assertEquals(FidClass.WAIT_SET, ws.fidClass());
        Domain d = fabric.domain(info(0), "dom");
        assertEquals(FidClass.DOMAIN, d.fidClass());
        assertEquals("dom", d.context());
        CompletionQueue cq = d.openCq(new CqAttr(), "cq");
        assertInstanceOf(UtilCompletionQueue.class, cq);
        assertSame("cq", cq.context());
        Counter cntr = d.openCounter(new CounterAttr(), "cntr");
        assertInstanceOf(UtilCounter.class, cntr);
        AddressVector av = d.openAv(new AvAttr(), "av");
        assertInstanceOf(UtilAddressVector.class, av);
        assertEquals(AddrFormat.SOCKADDR_IN, ((UtilAddressVector) av).addrFormat());
        PollSet ps = d.openPollSet(new PollAttr());
        assertInstanceOf(UtilPollSet.class, ps);
        MemoryRegion mr = d.register(ByteBuffer.allocate(32), Fi.FI_REMOTE_READ, 0, 5, 0, "mr");
        assertSame(mr, ((UtilDomain) d).memoryRegistry().lookup(5));
        assertEquals(9, resources.size(), "fabric, EQ, wait set, domain, CQ, counter, AV, poll set, region");

        for (Fid f : new Fid[] {mr, ps, av, cntr, cq, d, ws, eq}) {
            f.close();
        }
        assertEquals(1, resources.size(), "closing removes");
        fabric.close();
        assertEquals(0, resources.size());
    }

    @Test
    void avOfTheDomainResolvesServicesInItsFormat() throws Exception {
        Domain d = fabric.domain(info(0), null);
        AddressVector av = d.openAv(null, null);
        long[] out = new long[1];
        assertEquals(1, av.insertSvc("127.0.0.1", "7000", out, 0, null));
        assertEquals("fi_sockaddr_in://127.0.0.1:7000", av.straddr(av.lookup(out[0])));
    }

    @Test
    void closeOrderIsEnforcedWithEbusyAndNothingChanges() throws Exception {
        Domain d = fabric.domain(info(0), null);
        CompletionQueue cq = d.openCq(null, null);
        EventQueue eq = fabric.openEq(null, null);
        d.bind(eq, Fi.FI_REG_MR);
        MemoryRegion mr = d.register(ByteBuffer.allocate(8), Fi.FI_SEND, 0, 1, 0, null);

        fails(Errno.EBUSY, fabric::close);
        fails(Errno.EBUSY, d::close);
        fails(Errno.EBUSY, eq::close); // bound to the domain
        assertTrue(fabric.isOpen());
        assertTrue(((UtilDomain) d).isOpen());
        CompletionQueue cq2 = d.openCq(null, null); // the domain still works
        cq2.close();

        cq.close();
        fails(Errno.EBUSY, d::close);
        mr.close();
        fails(Errno.EBUSY, fabric::close);
        d.close(); // releases the EQ and the fabric
        fails(Errno.EBUSY, fabric::close); // the EQ is still open under it
        eq.close();
        fabric.close();
        assertEquals(0, resources.size());
    }

    @Test
    void closedOwnersOpenNothing() throws Exception {
        Domain d = fabric.domain(info(0), null);
        d.close();
        fails(Errno.EBADF, () -> d.openCq(null, null));
        fails(Errno.EBADF, () -> d.register(ByteBuffer.allocate(8), Fi.FI_SEND, 0, 1, 0, null));
        fabric.close();
        fails(Errno.EBADF, () -> fabric.openEq(null, null));
        fails(Errno.EBADF, () -> fabric.domain(info(0), null));
        assertEquals(0, resources.size());
    }

    @Test
    void noPassiveEndpointsNoEndpoints() throws Exception {
        FabricException e = assertThrows(FabricException.class, () -> fabric.passiveEndpoint(info(0), null));
        assertEquals(Errno.ENOSYS, e.errno());
        assertTrue(e.getMessage().contains("testprov"), e.getMessage());
        Domain d = fabric.domain(info(0), null);
        fails(Errno.ENOSYS, () -> d.endpoint(info(0), null));
    }

    @Test
    void departureMakesControlCallsThrowEnodev() throws Exception {
        Domain d = fabric.domain(info(0), null);
        CompletionQueue cq = d.openCq(null, null);
        EventQueue eq = fabric.openEq(null, null);
        resources.departAll();

        assertTrue(fabric.isDeparted());
        assertTrue(((UtilDomain) d).isDeparted());
        assertTrue(((UtilCompletionQueue) cq).isDeparted());
        fails(Errno.ENODEV, () -> fabric.openEq(null, null));
        fails(Errno.ENODEV, () -> fabric.openWaitSet(null));
        fails(Errno.ENODEV, () -> fabric.domain(info(0), null));
        fails(Errno.ENODEV, () -> fabric.passiveEndpoint(info(0), null));
        fails(Errno.ENODEV, () -> d.openCq(null, null));
        fails(Errno.ENODEV, () -> d.openCounter(null, null));
        fails(Errno.ENODEV, () -> d.openAv(null, null));
        fails(Errno.ENODEV, () -> d.openPollSet(null));
        fails(Errno.ENODEV, () -> d.register(ByteBuffer.allocate(8), Fi.FI_SEND, 0, 1, 0, null));
        fails(Errno.ENODEV, () -> d.bind(eq, Fi.FI_REG_MR));
        assertEquals(-Errno.ENODEV, fabric.tryWait(eq));

        // the application can still close everything, children first (R9 still holds)
        fails(Errno.EBUSY, fabric::close);
        cq.close();
        d.close();
        eq.close();
        fabric.close();
    }

    @Test
    void adoptFailsWithEnodevOnceDepartedAndClosesTheChild() throws Exception {
        resources.departAll();
        UtilEventQueue orphan = new UtilEventQueue(null, null);
        // the fabric is departed: retain fails with ENODEV and the child is closed again
        fails(Errno.ENODEV, () -> fabric.adopt(fabric, orphan));
        assertEquals(-Errno.EBADF, orphan.read(new EqEntry(), 0));
    }

    @Test
    void registrationsCompleteOnTheBoundEq() throws Exception {
        UtilDomain d = (UtilDomain) fabric.domain(info(0), null);
        EventQueue eq = fabric.openEq(null, null);
        fails(Errno.EINVAL, () -> d.bind(eq, 0));
        fails(Errno.EINVAL, () -> d.bind(eq, Fi.FI_REG_MR | Fi.FI_MORE));
        fails(Errno.EINVAL, () -> d.bind(null, Fi.FI_REG_MR));
        EqEntry entry = new EqEntry();
        d.register(ByteBuffer.allocate(8), Fi.FI_SEND, 0, 1, 0, "before-bind");
        assertEquals(-Errno.EAGAIN, eq.read(entry, 0), "no events before the bind");

        d.bind(eq, Fi.FI_REG_MR);
        fails(Errno.EINVAL, () -> d.bind(eq, Fi.FI_REG_MR));
        Object ctx = new Object();
        MemoryRegion mr = d.register(ByteBuffer.allocate(8), Fi.FI_SEND, 0, 2, 0, ctx);
        assertEquals(1, eq.read(entry, 0));
        assertEquals(Fi.FI_MR_COMPLETE, entry.event());
        assertSame(mr, entry.fid());
        assertSame(ctx, entry.context());
        assertEquals(-Errno.EAGAIN, eq.read(entry, 0));
    }

    @Test
    void aRegistrationWhoseEventIsLostIsUndone() throws Exception {
        UtilDomain d = (UtilDomain) fabric.domain(info(0), null);
        EventQueue eq = fabric.openEq(new EqAttr().size(1), null);
        d.bind(eq, Fi.FI_REG_MR);
        d.register(ByteBuffer.allocate(8), Fi.FI_SEND, 0, 1, 0, null);
        int before = resources.size();
        fails(Errno.EOVERRUN, () -> d.register(ByteBuffer.allocate(8), Fi.FI_SEND, 0, 2, 0, null));
        assertEquals(null, d.memoryRegistry().lookup(2));
        assertEquals(1, d.memoryRegistry().size());
        assertEquals(before, resources.size());
    }

    @Test
    void providerKeysFollowTheMrMode() throws Exception {
        Domain prov = fabric.domain(info(Fi.FI_MR_PROV_KEY), null);
        MemoryRegion a = prov.register(ByteBuffer.allocate(8), Fi.FI_REMOTE_READ, 0, 3, 0, null);
        MemoryRegion b = prov.register(ByteBuffer.allocate(8), Fi.FI_REMOTE_READ, 0, 3, 0, null);
        assertNotEquals(a.key(), b.key(), "the requested key is ignored");
        Domain user = fabric.domain(info(0), null);
        MemoryRegion c = user.register(ByteBuffer.allocate(8), Fi.FI_REMOTE_READ, 0, 3, 0, null);
        assertEquals(3, c.key());
        fails(Errno.ENOKEY, () -> user.register(ByteBuffer.allocate(8), Fi.FI_REMOTE_READ, 0, 3, 0, null));
    }

    @Test
    void tryWaitAsksTheQueues() throws Exception {
        UtilEventQueue eq = (UtilEventQueue) fabric.openEq(new EqAttr().waitObj(WaitObj.MUTEX_COND), null);
        assertEquals(0, fabric.tryWait(eq));
        eq.post(Fi.FI_NOTIFY, null, null, 0, null, null, 0);
        assertEquals(-Errno.EAGAIN, fabric.tryWait(eq));
        EventQueue none = fabric.openEq(new EqAttr().waitObj(WaitObj.NONE), null);
        assertEquals(-Errno.EINVAL, fabric.tryWait(none));
    }

    @Test
    void whenClosedRunsOnceAfterCloseAndAtOnceOnAClosedObject() throws Exception {
        UtilEventQueue eq = new UtilEventQueue(null, null);
        int[] runs = new int[2];
        eq.whenClosed(() -> runs[0]++);
        eq.whenClosed(() -> runs[1]++);
        eq.depart();
        assertEquals(0, runs[0], "not on departure");
        eq.close();
        eq.close();
        assertEquals(1, runs[0]);
        assertEquals(1, runs[1]);
        eq.whenClosed(() -> runs[0]++);
        assertEquals(2, runs[0], "at once when already closed");
    }
}
