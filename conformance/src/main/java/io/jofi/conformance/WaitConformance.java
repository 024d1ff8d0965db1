package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.Counter;
import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.FidClass;
import io.jofi.Info;
import io.jofi.PollAttr;
import io.jofi.PollSet;
import io.jofi.WaitAttr;
import io.jofi.WaitObj;
import io.jofi.WaitObject;
import io.jofi.WaitSet;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Wait sets (fi_wait) and poll sets (fi_poll): a member signals its wait set (FI_WAIT_SET of
 * fi_cq(3)/fi_eq(3)), {@code await} times out with -EAGAIN and honours interrupts (R4), a
 * wait set refuses to close while a member is attached (R9); a poll set reports the contexts
 * of its members that have events.
 *
 * <p>Waiting for a message from a peer whose sends nothing in this domain drives (an
 * {@link AutoSender}, as a peer in another process), in the suite's progress mode: after
 * {@code Fabric.tryWait} returned 0, a CQ's or counter's exported wait object ({@code FD}
 * channel, {@code MUTEX_COND}) is woken when the message arrives, and {@code WaitSet.await}
 * returns for it well before its timeout — in {@code MANUAL} progress too, where nobody
 * moves data while the application sleeps.
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

    // ------------------------------------------------------------------ waking for a peer's message

    /** What a message must wake: the receive CQ's or the receive counter's wait object. */
    enum Target { CQ, COUNTER }

    /** Side b of the waking tests: an RDM endpoint of the suite's domain, with its receive queues. */
    private record Receiver(Endpoint ep, CompletionQueue rxCq, Counter rxCntr, byte[] name) {
    }

    /** An RDM receiver whose receive CQ (and counter, when {@code cntrAttr} is not null) are bound with FI_RECV. */
    private Receiver receiver(CqAttr rxAttr, CounterAttr cntrAttr) throws FabricException {
        Info info = fx.require(Fi.FI_MSG, 0, EpType.RDM);
        Endpoint ep = fx.openEndpoint(info, "wait-receiver");
        CompletionQueue tx = fx.openCq(new CqAttr(), "wait-receiver-tx");
        CompletionQueue rx = fx.openCq(rxAttr, "wait-receiver-rx");
        ep.bind(tx, Fi.FI_TRANSMIT);
        ep.bind(rx, Fi.FI_RECV);
        Counter c = null;
        if (cntrAttr != null) {
            c = fx.openCounter(cntrAttr, "wait-receiver-cntr");
            ep.bind(c, Fi.FI_RECV);
        }
        AddressVector av = fx.openAv(new AvAttr().type(info.domainAttr().avType()), "wait-receiver-av");
        ep.bind(av, 0);
        ep.enable();
        return new Receiver(ep, rx, c, ep.getName());
    }

    private AutoSender sender(Receiver r) throws FabricException {
        return new AutoSender(fx.fabrics(), fx.provider(), await().timeoutMs(), r.name());
    }

    private void postReceive(Receiver r, ByteBuffer into) {
        await().until(() -> {
            int rc = r.ep().recv(into, null, Fi.FI_ADDR_UNSPEC, "wait-recv");
            assertTrue(rc == 0 || rc == -Errno.EAGAIN, "recv returned " + rc);
            return rc == 0;
        }, "the receive to be posted");
    }

    /**
     * {@code Fabric.tryWait} on {@code fid} until it says "safe to block" (0): a spurious
     * {@code -EAGAIN} or two is allowed (the C loop reads and tries again), never one for ever.
     */
    private void tryWaitUntilSafe(Fid fid) throws FabricException {
        int rc = -Errno.EAGAIN;
        for (int i = 0; i < 5 && rc == -Errno.EAGAIN; i++) {
            rc = fx.fabric().tryWait(fid);
        }
        assertEquals(0, rc, "tryWait on a queue with nothing to read must come to 0 (safe to block)");
    }

    /**
     * R4 and docs/API.md "FI_WAIT_FD / FI_WAIT_MUTEX_COND: use Fabric.tryWait before blocking":
     * after tryWait returned 0, the CQ's or counter's wait object wakes when a peer's message
     * arrives — in MANUAL progress too, where nobody moves data while the application sleeps
     * on it. Twice: the first message also makes the connection (RDM), the second uses it.
     */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"FD", "MUTEX_COND"})
    void waitObjectOfACqWakesForAPeersMessageAfterTryWait(WaitObj waitObj) throws FabricException {
        Receiver r = receiver(new CqAttr().waitObj(waitObj), null);
        wakesForAPeersMessage(r, r.rxCq(), Target.CQ);
    }

    /** As {@link #waitObjectOfACqWakesForAPeersMessageAfterTryWait}, for a receive counter's wait object. */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"FD", "MUTEX_COND"})
    void waitObjectOfACounterWakesForAPeersMessageAfterTryWait(WaitObj waitObj) throws FabricException {
        Receiver r = receiver(new CqAttr(), new CounterAttr().waitObj(waitObj));
        wakesForAPeersMessage(r, r.rxCntr(), Target.COUNTER);
    }

    private void wakesForAPeersMessage(Receiver r, Fid waitable, Target target) throws FabricException {
        WaitObject w = target == Target.CQ ? r.rxCq().getWait() : r.rxCntr().getWait();
        try (AutoSender s = sender(r)) {
            for (int round = 1; round <= 2; round++) {
                postReceive(r, ByteBuffer.allocateDirect(8));
                String what = target + " wait object " + w.getClass().getSimpleName() + ", message " + round;
                boolean woken;
                if (w instanceof WaitObject.Fd fd) {
                    try (FdReadiness ready = new FdReadiness(fd.channel())) {
                        tryWaitUntilSafe(waitable);
                        assertTrue(!ready.readableNow(), what + ": the FD is readable after tryWait returned 0");
                        s.send();
                        woken = ready.readableWithin(await().timeoutMs());
                    }
                } else {
                    WaitObject.MutexCond mc = (WaitObject.MutexCond) w;
                    mc.mutex().lock();
                    try {
                        tryWaitUntilSafe(waitable);
                        s.send();
                        woken = mc.cond().await(await().timeoutMs(), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new AssertionError(what + ": interrupted", e);
                    } finally {
                        mc.mutex().unlock();
                    }
                }
                assertTrue(woken, what + ": not woken within " + await().timeoutMs()
                        + " ms of the peer's send although tryWait returned 0 (R4)");
                s.sent();
                // The message is there (the reads below drive progress, as the application's would).
                if (target == Target.CQ) {
                    await().completion(r.rxCq(), new CqEntry(), what + ": the receive completion");
                } else {
                    long want = round;
                    await().until(() -> r.rxCntr().read() >= want, what + ": the receive counter to count it");
                }
            }
        }
    }

    /**
     * fi_wait: a wait set's await returns when a member's completion arrives from a peer — in
     * MANUAL progress it must drive its members' progress as it waits (as sread does), not
     * sleep through the message until its timeout.
     */
    @Test
    void waitSetAwaitReturnsForAPeersMessage() throws FabricException {
        WaitSet ws = waitSet();
        Receiver r = receiver(new CqAttr().waitObj(WaitObj.SET).waitSet(ws), null);
        try (AutoSender s = sender(r)) {
            postReceive(r, ByteBuffer.allocateDirect(8));
            s.send();
            long bound = await().timeoutMs();
            long t0 = System.nanoTime();
            int rc = ws.await((int) (3 * bound));
            long tookMs = (System.nanoTime() - t0) / 1_000_000L;
            assertEquals(0, rc, "WaitSet.await(" + 3 * bound + ") with a peer's message on its way returned " + rc
                    + " after " + tookMs + " ms");
            assertTrue(tookMs < bound, "WaitSet.await took " + tookMs + " ms for a message sent at once");
            s.sent();
            await().completion(r.rxCq(), new CqEntry(), "the receive completion");
        }
    }
}
