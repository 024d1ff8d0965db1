package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Counter;
import io.jofi.CounterAttr;
import io.jofi.Endpoint;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.FidClass;
import io.jofi.Info;
import io.jofi.WaitAttr;
import io.jofi.WaitObj;
import io.jofi.WaitObject;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Counters (fi_cntr) through what a domain offers: success and error counts, add/set,
 * {@code await} with every wait object (R4), wait objects, and EBUSY on close while an
 * endpoint is bound (R9). Counters counting real operations are tested in
 * {@link MsgConformance}.
 */
public abstract class CounterConformance extends ProviderTest {
    private static final Duration AT_ONCE = Duration.ofSeconds(10);

    private Counter openWith(WaitObj waitObj) throws FabricException {
        CounterAttr attr = new CounterAttr().waitObj(waitObj);
        if (waitObj == WaitObj.SET) {
            attr.waitSet(fx.openWaitSet(new WaitAttr().waitObj(WaitObj.UNSPEC)));
        }
        return fx.openCounter(attr, "counter-under-test");
    }

    /** A new counter reads 0 successes and 0 errors; its context is the one given. */
    @Test
    void startsAtZero() throws FabricException {
        Object ctx = new Object();
        Counter c = fx.openCounter(new CounterAttr(), ctx);
        assertSame(ctx, c.context(), "counter.context()");
        assertEquals(FidClass.COUNTER, c.fidClass());
        assertEquals(0, c.read(), "a new counter's value");
        assertEquals(0, c.readErr(), "a new counter's error value");
    }

    /** fi_cntr_add/set and adderr/seterr change their own count only. */
    @Test
    void addAndSetChangeTheirOwnCount() throws FabricException {
        Counter c = openWith(WaitObj.NONE);
        assertEquals(0, c.add(5), "add");
        assertEquals(0, c.add(2), "add");
        assertEquals(7, c.read(), "after add 5, add 2");
        assertEquals(0, c.readErr(), "add does not touch the error count");
        assertEquals(0, c.set(3), "set");
        assertEquals(3, c.read(), "after set 3");
        assertEquals(0, c.addErr(4), "addErr");
        assertEquals(4, c.readErr(), "after addErr 4");
        assertEquals(0, c.setErr(1), "setErr");
        assertEquals(1, c.readErr(), "after setErr 1");
        assertEquals(3, c.read(), "the error calls do not touch the success count");
    }

    /** R4: await on a counter with WaitObj.NONE or SET returns -ENOSYS at once. */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"NONE", "SET"})
    void awaitWithoutUsableWaitObjectIsEnosys(WaitObj waitObj) throws FabricException {
        Counter c = openWith(waitObj);
        int rc = assertTimeoutPreemptively(AT_ONCE, () -> c.await(1, -1),
                "await(timeout -1) on a " + waitObj + " counter must return at once (R4)");
        assertEquals(-Errno.ENOSYS, rc, "await on a " + waitObj + " counter (R4)");
    }

    /** fi_cntr_wait: a threshold already reached returns 0; one not reached times out with -EAGAIN (R4). */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND", "YIELD"})
    void awaitReturnsAtThresholdOrTimesOut(WaitObj waitObj) throws FabricException {
        Counter c = openWith(waitObj);
        c.add(3);
        assertEquals(0, c.await(3, -1), "await of a threshold already reached");
        assertEquals(0, c.await(2, 0), "await of a threshold already passed");
        assertEquals(-Errno.EAGAIN, c.await(4, 20), "await timing out below the threshold (R4)");
    }

    /** fi_cntr_wait: an add from another thread wakes a waiter blocked forever. */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND", "YIELD"})
    void addWakesABlockedWaiter(WaitObj waitObj) throws FabricException {
        Counter c = openWith(waitObj);
        BlockedCall waiter = BlockedCall.start("conformance-cntr-wait", () -> c.await(2, -1));
        c.add(1);
        c.add(1);
        assertEquals(0, waiter.join(await(), "await(2, -1) to return after two adds"), "await");
    }

    /** Counter.await: the error count changing while waiting returns -EAVAIL. */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND", "YIELD"})
    void errorWhileWaitingIsEavail(WaitObj waitObj) throws FabricException {
        Counter c = openWith(waitObj);
        BlockedCall waiter = BlockedCall.start("conformance-cntr-wait", () -> c.await(1, -1));
        // the waiter may not have started yet: keep raising errors until it returns
        BlockedCall adder = BlockedCall.start("conformance-cntr-adderr", () -> {
            for (int i = 0; i < 1_000_000 && c.read() == 0; i++) {
                c.addErr(1);
                Thread.yield();
                if (Thread.currentThread().isInterrupted()) {
                    break;
                }
            }
            return 0;
        });
        int rc = waiter.join(await(), "await to return after the error count changed");
        c.add(1); // stops the adder
        adder.join(await(), "the error-raising thread");
        assertEquals(-Errno.EAVAIL, rc, "await when the error count changed while waiting");
        assertTrue(c.readErr() > 0, "error count");
    }

    /** R4: interrupting the waiting thread returns -EAGAIN and keeps its interrupt status. */
    @ParameterizedTest
    @EnumSource(value = WaitObj.class, names = {"UNSPEC", "FD", "MUTEX_COND", "YIELD"})
    void interruptedWaiterReturnsEagainAndKeepsStatus(WaitObj waitObj) throws FabricException {
        Counter c = openWith(waitObj);
        BlockedCall waiter = BlockedCall.start("conformance-cntr-wait", () -> c.await(1, -1));
        waiter.interrupt();
        assertEquals(-Errno.EAGAIN, waiter.join(await(), "await(timeout -1) to return after an interrupt (R4)"),
                "await of an interrupted thread (R4)");
        assertTrue(waiter.interruptedAfter(), "the interrupt status must be kept (R4)");
    }

    /** fi_control(FI_GETWAIT) on a counter: FD and MUTEX_COND export their object, the others throw ENOSYS. */
    @ParameterizedTest
    @EnumSource(WaitObj.class)
    void getWaitMatchesTheWaitObject(WaitObj waitObj) throws FabricException {
        Counter c = openWith(waitObj);
        if (waitObj == WaitObj.FD) {
            WaitObject.Fd fd = assertInstanceOf(WaitObject.Fd.class, c.getWait(), "getWait() of an FD counter");
            assertNotNull(fd.channel(), "channel");
        } else if (waitObj == WaitObj.MUTEX_COND) {
            WaitObject.MutexCond mc = assertInstanceOf(WaitObject.MutexCond.class, c.getWait(), "getWait() of a MUTEX_COND counter");
            assertNotNull(mc.mutex(), "mutex");
            assertNotNull(mc.cond(), "cond");
        } else {
            FabricException e = assertThrows(FabricException.class, c::getWait, "getWait() of a " + waitObj + " counter");
            assertEquals(Errno.ENOSYS, e.errno(), "getWait() of a " + waitObj + " counter: " + e);
        }
    }

    /** R9: closing a counter an endpoint is bound to throws EBUSY and changes nothing. */
    @Test
    void closeWhileBoundToAnEndpointIsEbusy() throws FabricException {
        Info info = fx.require(0);
        Counter c = openWith(WaitObj.NONE);
        Endpoint ep = fx.openEndpoint(info, "ep");
        ep.bind(c, Fi.FI_SEND | Fi.FI_RECV);
        c.add(2);
        FabricException e = assertThrows(FabricException.class, c::close, "closing a counter bound to an endpoint");
        assertEquals(Errno.EBUSY, e.errno(), "closing a bound counter (R9): " + e);
        assertEquals(2, c.read(), "the counter is unchanged by the refused close (R9)");
        fx.close(ep);
        fx.close(c);
    }
}
