package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.PollAttr;
import io.jofi.Progress;
import io.jofi.WaitAttr;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class UtilPollSetTest {

    private final Object eqCtx = new Object();
    private final Object cntrCtx = new Object();
    private UtilPollSet ps;
    private UtilEventQueue eq;
    private UtilCounter cntr;

    @BeforeEach
    void openAll() throws FabricException {
        ps = new UtilPollSet(new PollAttr());
        eq = new UtilEventQueue(null, eqCtx);
        cntr = new UtilCounter(null, cntrCtx);
    }

    @AfterEach
    void closeAll() throws FabricException {
        ps.close();
        eq.close();
        cntr.close();
    }

    @Test
    void badFlagsAreEinval() {
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> new UtilPollSet(new PollAttr().flags(1))).errno());
    }

    @Test
    void emptySetAndQuietMembersPollZero() throws FabricException {
        Object[] out = new Object[4];
        assertEquals(0, ps.poll(out));
        ps.add(eq);
        ps.add(cntr);
        assertEquals(2, ps.size());
        assertEquals(0, ps.poll(out));
        assertNull(out[0]);
    }

    @Test
    void pollFillsTheContextsOfMembersWithEvents() throws FabricException {
        ps.add(eq);
        ps.add(cntr);
        Object[] out = new Object[4];
        eq.post(1, cntr, null, 0, null, null, 0);
        assertEquals(1, ps.poll(out));
        assertSame(eqCtx, out[0]);
        cntr.increment();
        assertEquals(2, ps.poll(out));
        Set<Object> got = new HashSet<>();
        got.add(out[0]);
        got.add(out[1]);
        assertEquals(Set.of(eqCtx, cntrCtx), got);
        // the counter's change was reported; the EQ still holds its event
        assertEquals(1, ps.poll(out));
        assertSame(eqCtx, out[0]);
        assertEquals(1, eq.read(new EqEntry(), 0));
        assertEquals(0, ps.poll(out));
    }

    @Test
    void pollFillsAtMostTheArrayAndReachesEveryMemberInTurn() throws FabricException {
        ps.add(eq);
        ps.add(cntr);
        eq.post(1, null, null, 0, null, null, 0); // the EQ stays ready until read
        Object[] one = new Object[1];
        Set<Object> seen = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            cntr.increment();
            assertEquals(1, ps.poll(one));
            seen.add(one[0]);
        }
        assertEquals(Set.of(eqCtx, cntrCtx), seen, "a member with events does not starve the others");
        assertEquals(0, ps.poll(new Object[0]));
        assertEquals(-Errno.EINVAL, ps.poll(null));
    }

    @Test
    void pollDrivesTheProgressOfItsMembers() throws FabricException {
        AtomicInteger steps = new AtomicInteger();
        ProgressEngine engine = ProgressEngine.start(Progress.MANUAL, "test", new ProgressEngine.Step() {
            @Override
            public int progress(long timeoutNanos) {
                if (steps.incrementAndGet() == 1) {
                    cntr.increment();
                }
                return 0;
            }

            @Override
            public void wakeup() {
            }
        });
        try {
            cntr.attachProgress(engine);
            ps.add(cntr);
            Object[] out = new Object[1];
            assertEquals(1, ps.poll(out));
            assertSame(cntrCtx, out[0]);
            assertTrue(steps.get() >= 1);
        } finally {
            cntr.detachProgress(engine);
            engine.close();
        }
    }

    @Test
    void addAcceptsOnlyQueuesAndCounters() throws FabricException {
        UtilWaitSet set = new UtilWaitSet(new WaitAttr());
        UtilPollSet other = new UtilPollSet(null);
        try {
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> ps.add(set)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> ps.add(other)).errno());
            assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> ps.add(null)).errno());
            ps.add(eq);
            assertEquals(Errno.EEXIST, assertThrows(FabricException.class, () -> ps.add(eq)).errno());
            assertEquals(1, ps.size());
            assertEquals(1, eq.bindCount());
        } finally {
            set.close();
            other.close();
        }
    }

    @Test
    void closingAPolledMemberIsEbusyUntilRemoved() throws FabricException {
        ps.add(eq);
        ps.add(cntr);
        assertEquals(Errno.EBUSY, assertThrows(FabricException.class, eq::close).errno());
        assertEquals(Errno.EBUSY, assertThrows(FabricException.class, cntr::close).errno());
        assertTrue(eq.isOpen());
        ps.remove(eq);
        eq.close();
        assertEquals(Errno.ENOENT, assertThrows(FabricException.class, () -> ps.remove(eq)).errno());
        assertEquals(1, ps.size());
    }

    @Test
    void addingAClosedMemberFails() throws FabricException {
        cntr.close();
        FabricException e = assertThrows(FabricException.class, () -> ps.add(cntr));
        assertEquals(Errno.EBADF, e.errno());
        assertEquals(0, ps.size());
    }

    @Test
    void closingThePollSetReleasesItsMembers() throws FabricException {
        ps.add(eq);
        ps.add(cntr);
        ps.close();
        assertEquals(0, eq.bindCount());
        assertEquals(-Errno.EBADF, ps.poll(new Object[1]));
        assertEquals(Errno.EBADF, assertThrows(FabricException.class, () -> ps.add(eq)).errno());
        eq.close();
        cntr.close();
    }

    @Test
    void departedPollSetAnswersEnodevAndReleasesItsMembers() throws FabricException {
        ps.add(cntr);
        ps.depart();
        assertEquals(-Errno.ENODEV, ps.poll(new Object[1]));
        assertEquals(0, cntr.bindCount());
        assertEquals(Errno.ENODEV, assertThrows(FabricException.class, () -> ps.add(eq)).errno());
    }
}
