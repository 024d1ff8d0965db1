package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.AddrFormat;
import io.jofi.AvAttr;
import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Progress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * {@link EndpointBindings}: the fi_ep_bind rules of fi_endpoint(3), the retains that make a
 * bound object's close EBUSY (R9), progress attached to what is bound, and release on teardown.
 */
class EndpointBindingsTest {
    private final AtomicInteger steps = new AtomicInteger();
    private ProgressEngine engine;
    private final List<AbstractFid> opened = new ArrayList<>();

    @BeforeEach
    void startEngine() {
        engine = ProgressEngine.start(Progress.MANUAL, "bindings-test", new ProgressEngine.Step() {
            @Override
            public int progress(long timeoutNanos) {
                steps.incrementAndGet();
                return 0;
            }

            @Override
            public void wakeup() {
            }
        });
    }

    @AfterEach
    void closeAll() throws FabricException {
        engine.close();
        for (AbstractFid f : opened) {
            while (f.bindCount() > 0) {
                f.release();
            }
            f.close();
        }
    }

    private <T extends AbstractFid> T track(T f) {
        opened.add(f);
        return f;
    }

    private UtilCompletionQueue cq() throws FabricException {
        return track(new UtilCompletionQueue(new CqAttr(), "cq"));
    }

    private UtilCounter counter() throws FabricException {
        return track(new UtilCounter(new CounterAttr(), "cntr"));
    }

    private UtilEventQueue eq() throws FabricException {
        return track(new UtilEventQueue(new EqAttr(), "eq"));
    }

    private UtilAddressVector av() throws FabricException {
        return track(new UtilAddressVector(new AvAttr(), "av", AddrFormat.UNSPEC, null));
    }

    private EndpointBindings all() {
        return new EndpointBindings(engine, EndpointBindings.ALL_COUNTER_ROLES);
    }

    private static void fails(int errno, Executable r, String what) {
        FabricException e = assertThrows(FabricException.class, r, what);
        assertEquals(errno, e.errno(), what + ": " + e.getMessage());
    }

    // ------------------------------------------------------------------ CQs

    @Test
    void cqForBothDirectionsIsRetainedPerRoleUntilReleased() throws FabricException {
        UtilCompletionQueue cq = cq();
        EndpointBindings b = all();
        b.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV | Fi.FI_SELECTIVE_COMPLETION);
        assertSame(cq, b.txCq());
        assertSame(cq, b.rxCq());
        assertTrue(b.selectiveTx());
        assertTrue(b.selectiveRx());
        assertEquals(2, cq.bindCount(), "one retain per role");
        fails(Errno.EBUSY, cq::close, "R9: closing a CQ an endpoint is bound to");
        b.releaseAll(null);
        assertEquals(0, cq.bindCount());
        assertNull(b.txCq());
        assertDoesNotThrow(cq::close, "R9: the CQ closes once the endpoint let go");
    }

    @Test
    void cqDirectionsAndSelectiveAreSeparate() throws FabricException {
        UtilCompletionQueue tx = cq();
        UtilCompletionQueue rx = cq();
        EndpointBindings b = all();
        b.bind(tx, Fi.FI_TRANSMIT);
        b.bind(rx, Fi.FI_RECV | Fi.FI_SELECTIVE_COMPLETION);
        assertSame(tx, b.txCq());
        assertSame(rx, b.rxCq());
        assertFalse(b.selectiveTx());
        assertTrue(b.selectiveRx());
        assertEquals(1, tx.bindCount());
        assertEquals(1, rx.bindCount());
    }

    @Test
    void cqFlagsOutsideTheDirectionsAreEinval() throws FabricException {
        UtilCompletionQueue cq = cq();
        EndpointBindings b = all();
        fails(Errno.EINVAL, () -> b.bind(cq, 0), "a CQ without a direction");
        fails(Errno.EINVAL, () -> b.bind(cq, Fi.FI_SELECTIVE_COMPLETION), "selective without a direction");
        fails(Errno.EINVAL, () -> b.bind(cq, Fi.FI_RECV | Fi.FI_READ), "a counter role on a CQ");
        assertEquals(0, cq.bindCount(), "nothing retained by a refused bind");
        assertNull(b.rxCq());
    }

    @Test
    void secondCqForABoundDirectionIsEinvalAndChangesNothing() throws FabricException {
        UtilCompletionQueue first = cq();
        UtilCompletionQueue second = cq();
        EndpointBindings b = all();
        b.bind(first, Fi.FI_RECV);
        fails(Errno.EINVAL, () -> b.bind(second, Fi.FI_TRANSMIT | Fi.FI_RECV), "fi_endpoint(3): a single CQ per direction");
        assertEquals(0, second.bindCount());
        assertNull(b.txCq(), "the free direction was not bound either");
        assertSame(first, b.rxCq());
    }

    @Test
    void closedOrDepartedObjectsAreRefusedWithNothingRetained() throws FabricException {
        UtilCompletionQueue closed = new UtilCompletionQueue(new CqAttr(), "closed");
        closed.close();
        UtilCompletionQueue departed = cq();
        departed.depart();
        EndpointBindings b = all();
        fails(Errno.EBADF, () -> b.bind(closed, Fi.FI_TRANSMIT | Fi.FI_RECV), "a closed CQ");
        fails(Errno.ENODEV, () -> b.bind(departed, Fi.FI_TRANSMIT), "a departed CQ (R15)");
        assertEquals(0, closed.bindCount());
        assertEquals(0, departed.bindCount());
        assertNull(b.txCq());
        assertNull(b.rxCq());
    }

    // ------------------------------------------------------------------ counters

    @Test
    void counterRolesAreRetainedPerRole() throws FabricException {
        UtilCounter c = counter();
        EndpointBindings b = all();
        b.bind(c, Fi.FI_SEND | Fi.FI_REMOTE_WRITE);
        assertSame(c, b.counter(Fi.FI_SEND));
        assertSame(c, b.counter(Fi.FI_REMOTE_WRITE));
        assertNull(b.counter(Fi.FI_RECV));
        assertEquals(2, c.bindCount());
        fails(Errno.EBUSY, c::close, "R9: closing a bound counter");
        b.releaseAll(null);
        assertEquals(0, c.bindCount());
        assertNull(b.counter(Fi.FI_SEND));
    }

    @Test
    void counterRoleTheProviderDoesNotCountIsEinval() throws FabricException {
        UtilCounter c = counter();
        EndpointBindings b = new EndpointBindings(engine, Fi.FI_SEND | Fi.FI_RECV | Fi.FI_READ | Fi.FI_WRITE);
        fails(Errno.EINVAL, () -> b.bind(c, Fi.FI_REMOTE_WRITE), "a role this provider does not count");
        fails(Errno.EINVAL, () -> b.bind(c, Fi.FI_SEND | Fi.FI_REMOTE_READ), "one counted role and one not");
        fails(Errno.EINVAL, () -> b.bind(c, 0), "no role");
        fails(Errno.EINVAL, () -> b.bind(c, Fi.FI_SEND | Fi.FI_TRANSMIT | Fi.FI_SELECTIVE_COMPLETION), "a CQ flag");
        assertEquals(0, c.bindCount());
        b.bind(c, Fi.FI_READ | Fi.FI_WRITE);
        assertEquals(2, c.bindCount());
    }

    @Test
    void secondCounterForABoundRoleIsEinvalAndChangesNothing() throws FabricException {
        UtilCounter first = counter();
        UtilCounter second = counter();
        EndpointBindings b = all();
        b.bind(first, Fi.FI_RECV);
        fails(Errno.EINVAL, () -> b.bind(second, Fi.FI_READ | Fi.FI_RECV), "fi_endpoint(3): one counter per role");
        assertEquals(0, second.bindCount());
        assertNull(b.counter(Fi.FI_READ), "the free role was not bound either");
    }

    @Test
    void counterOfANonRoleIsIllegalArgument() {
        EndpointBindings b = all();
        assertThrows(IllegalArgumentException.class, () -> b.counter(Fi.FI_SEND | Fi.FI_RECV));
        assertThrows(IllegalArgumentException.class, () -> new EndpointBindings(engine, Fi.FI_TAGGED));
        assertThrows(IllegalArgumentException.class, () -> new EndpointBindings(engine, 0));
    }

    // ------------------------------------------------------------------ EQ, AV, others

    @Test
    void eqAndAvOncePerEndpoint() throws FabricException {
        UtilEventQueue q = eq();
        UtilAddressVector a = av();
        EndpointBindings b = all();
        b.bind(q, 0);
        b.bind(a, 0);
        assertSame(q, b.eq());
        assertSame(a, b.av());
        fails(Errno.EINVAL, () -> b.bind(eq(), 0), "a second EQ");
        fails(Errno.EINVAL, () -> b.bind(av(), 0), "a second AV");
        fails(Errno.EBUSY, q::close, "R9: a bound EQ");
        fails(Errno.EBUSY, a::close, "R9: a bound AV");
        b.releaseAll(null);
        assertDoesNotThrow(q::close);
        assertDoesNotThrow(a::close);
    }

    @Test
    void objectsThatCannotBeBoundAreEinval() throws FabricException {
        EndpointBindings b = all();
        fails(Errno.EINVAL, () -> b.bind(new UtilWaitSet(null), 0), "a wait set");
        fails(Errno.EINVAL, () -> b.bind(null, Fi.FI_RECV), "null");
    }

    @Test
    void bindAfterSealIsEopbadstate() throws FabricException {
        UtilCompletionQueue cq = cq();
        EndpointBindings b = all();
        b.seal();
        fails(Errno.EOPBADSTATE, () -> b.bind(cq, Fi.FI_RECV), "fi_endpoint(3): bind before enable");
        assertEquals(0, cq.bindCount());
    }

    // ------------------------------------------------------------------ progress and teardown

    @Test
    void boundQueuesDriveTheEngineUntilReleased() throws FabricException {
        UtilCompletionQueue cq = cq();
        UtilCounter c = counter();
        UtilEventQueue q = eq();
        EndpointBindings b = all();
        b.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        b.bind(c, Fi.FI_SEND);
        b.bind(q, 0);
        int before = steps.get();
        assertEquals(-Errno.EAGAIN, cq.read(new CqEntry[] {new CqEntry()}, 1));
        c.read();
        q.read(new EqEntry(), 0);
        assertEquals(before + 3, steps.get(), "reading a bound CQ, counter and EQ drives the engine");
        b.releaseAll(null);
        cq.read(new CqEntry[] {new CqEntry()}, 1);
        c.read();
        q.read(new EqEntry(), 0);
        assertEquals(before + 3, steps.get(), "released: nothing drives the engine any more");
    }

    @Test
    void releasingOneEndpointKeepsTheOtherOnesProgressAndRetains() throws FabricException {
        UtilCompletionQueue shared = cq();
        EndpointBindings first = all();
        EndpointBindings second = all();
        first.bind(shared, Fi.FI_TRANSMIT | Fi.FI_RECV);
        second.bind(shared, Fi.FI_RECV);
        first.releaseAll(null);
        first.releaseAll(null); // a second teardown (close after departure) releases nothing more
        assertEquals(1, shared.bindCount(), "the other endpoint's retain stays");
        int before = steps.get();
        shared.read(new CqEntry[] {new CqEntry()}, 1);
        assertEquals(before + 1, steps.get(), "the other endpoint is still driven through the shared CQ");
        fails(Errno.EOPBADSTATE, () -> first.bind(cq(), Fi.FI_RECV), "bind after releaseAll");
    }

    @Test
    void releaseAllForAClosingEndpointDropsItsEventsOnly() throws FabricException {
        UtilEventQueue q = eq();
        AbstractFid closing = cq(); // stands for the endpoint: any fid names the events' source
        AbstractFid other = cq();
        EndpointBindings kept = all();
        kept.bind(q, 0);
        EndpointBindings dropped = all();
        dropped.bind(q, 0);
        q.post(Fi.FI_SHUTDOWN, closing, "closing", 0, null, null, 0);
        q.post(Fi.FI_SHUTDOWN, other, "other", 0, null, null, 0);
        kept.releaseAll(null);
        dropped.releaseAll(closing);
        EqEntry e = new EqEntry();
        assertTrue(q.read(e, 0) > 0, "the other object's event stays");
        assertEquals("other", e.context());
        assertEquals(-Errno.EAGAIN, q.read(e, 0), "the closed endpoint's event went");
    }
}
