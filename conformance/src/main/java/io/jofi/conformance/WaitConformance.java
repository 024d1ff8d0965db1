package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CompletionQueue;
import io.jofi.Counter;
import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.FidClass;
import io.jofi.PollAttr;
import io.jofi.PollSet;
import io.jofi.WaitAttr;
import io.jofi.WaitObj;
import io.jofi.WaitSet;
import org.junit.jupiter.api.Test;

/**
 * Wait sets (fi_wait) and poll sets (fi_poll): a member signals its wait set (FI_WAIT_SET of
 * fi_cq(3)/fi_eq(3)), {@code await} times out with -EAGAIN and honours interrupts (R4), a
 * wait set refuses to close while a member is attached (R9); a poll set reports the contexts
 * of its members that have events.
 */
public abstract class WaitConformance extends ProviderTest {
    private WaitSet waitSet() throws FabricException {
        return fx.openWaitSet(new WaitAttr().waitObj(WaitObj.UNSPEC));
    }

    private EventQueue eqIn(WaitSet ws) throws FabricException {
        return fx.openEq(new EqAttr().flags(Fi.FI_WRITE).waitObj(WaitObj.SET).waitSet(ws), "eq-in-set");
    }

    /** An empty wait set's await times out with -EAGAIN (R4). */
    @Test
    void awaitOfAQuietSetTimesOut() throws FabricException {
        WaitSet ws = waitSet();
        assertEquals(FidClass.WAIT_SET, ws.fidClass());
        assertEquals(-Errno.EAGAIN, ws.await(20), "await of a wait set nobody signals (R4)");
        assertEquals(-Errno.EAGAIN, ws.await(0), "await with timeout 0");
    }

    /** FI_WAIT_SET: an event written to a member EQ signals the set. */
    @Test
    void memberEventSignalsTheSet() throws FabricException {
        WaitSet ws = waitSet();
        EventQueue eq = eqIn(ws);
        assertEquals(1, eq.write(new EqEntry().event(EqConformance.APP_EVENT).data(1), 0), "write");
        assertEquals(0, ws.await((int) await().timeoutMs()), "await after a member EQ got an event");
        EqEntry r = new EqEntry();
        assertEquals(1, eq.read(r, 0), "the event is read from the EQ, not from the set");
        assertEquals(1, r.data());
    }

    /** FI_WAIT_SET: a write from another thread wakes a thread blocked forever in await. */
    @Test
    void memberEventWakesABlockedWaiter() throws FabricException {
        WaitSet ws = waitSet();
        EventQueue eq = eqIn(ws);
        BlockedCall waiter = BlockedCall.start("conformance-wait-set", () -> ws.await(-1));
        eq.write(new EqEntry().event(EqConformance.APP_EVENT).data(2), 0);
        assertEquals(0, waiter.join(await(), "WaitSet.await(-1) to return after a member EQ got an event"), "await");
    }

    /** fi_cntr: a counter in a wait set signals it when its value changes. */
    @Test
    void counterChangeSignalsTheSet() throws FabricException {
        WaitSet ws = waitSet();
        Counter c = fx.openCounter(new CounterAttr().waitObj(WaitObj.SET).waitSet(ws), "cntr-in-set");
        BlockedCall waiter = BlockedCall.start("conformance-wait-set", () -> ws.await(-1));
        c.add(1);
        assertEquals(0, waiter.join(await(), "WaitSet.await(-1) to return after a member counter changed"), "await");
    }

    /** R4: interrupting a thread blocked in await returns -EAGAIN and keeps its interrupt status. */
    @Test
    void interruptedWaiterReturnsEagainAndKeepsStatus() throws FabricException {
        WaitSet ws = waitSet();
        BlockedCall waiter = BlockedCall.start("conformance-wait-set", () -> ws.await(-1));
        waiter.interrupt();
        assertEquals(-Errno.EAGAIN, waiter.join(await(), "WaitSet.await(-1) to return after an interrupt"), "await");
        assertTrue(waiter.interruptedAfter(), "the interrupt status must be kept (R4)");
    }

    /** R9: a wait set with a member attached refuses to close (EBUSY) and keeps working. */
    @Test
    void closeWhileAMemberIsAttachedIsEbusy() throws FabricException {
        WaitSet ws = waitSet();
        EventQueue eq = eqIn(ws);
        CompletionQueue cq = fx.openCq(new CqAttr().waitObj(WaitObj.SET).waitSet(ws), "cq-in-set");
        FabricException e = assertThrows(FabricException.class, ws::close, "closing a wait set with members");
        assertEquals(Errno.EBUSY, e.errno(), "closing a wait set with members (R9): " + e);
        eq.write(new EqEntry().event(EqConformance.APP_EVENT), 0);
        assertEquals(0, ws.await((int) await().timeoutMs()), "the set still works after the refused close (R9)");
        fx.close(eq);
        FabricException e2 = assertThrows(FabricException.class, ws::close, "closing a wait set with a CQ member");
        assertEquals(Errno.EBUSY, e2.errno(), "closing a wait set a CQ still uses (R9): " + e2);
        fx.close(cq);
        fx.close(ws);
    }

    /** fi_poll: a poll set reports the contexts of the members that have events, and nothing else. */
    @Test
    void pollReportsMembersWithEvents() throws FabricException {
        PollSet ps = fx.openPollSet(new PollAttr());
        assertEquals(FidClass.POLL_SET, ps.fidClass());
        Object eqCtx = new Object();
        Object cqCtx = new Object();
        EventQueue eq = fx.openEq(new EqAttr().flags(Fi.FI_WRITE), eqCtx);
        CompletionQueue cq = fx.openCq(new CqAttr(), cqCtx);
        ps.add(eq);
        ps.add(cq);
        Object[] ctxs = new Object[4];
        assertEquals(0, ps.poll(ctxs), "poll with no member having events");
        eq.write(new EqEntry().event(EqConformance.APP_EVENT), 0);
        assertEquals(1, ps.poll(ctxs), "poll with one member having an event");
        assertSame(eqCtx, ctxs[0], "the context reported is the EQ's own");
        EqEntry r = new EqEntry();
        assertEquals(1, eq.read(r, 0), "read");
        ps.remove(eq);
        eq.write(new EqEntry().event(EqConformance.APP_EVENT), 0);
        assertEquals(0, ps.poll(ctxs), "a removed member is no longer polled");
        ps.remove(cq);
    }

    /** fi_poll_del of a non-member is ENOENT; fi_poll_add of something that is not a CQ, counter or EQ is EINVAL. */
    @Test
    void pollSetRefusesBadMembers() throws FabricException {
        PollSet ps = fx.openPollSet(new PollAttr());
        CompletionQueue cq = fx.openCq(new CqAttr(), "cq");
        FabricException e = assertThrows(FabricException.class, () -> ps.remove(cq), "removing a non-member");
        assertEquals(Errno.ENOENT, e.errno(), "removing a non-member: " + e);
        WaitSet ws = waitSet();
        FabricException e2 = assertThrows(FabricException.class, () -> ps.add(ws), "adding a wait set to a poll set");
        assertEquals(Errno.EINVAL, e2.errno(), "adding a wait set to a poll set: " + e2);
    }
}
