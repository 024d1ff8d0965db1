package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * {@link WriteConfirms}' rules, without a device: a write that completes locally while reads of
 * data are in flight rides on them instead of sending a confirmation read (on soft-iWARP one
 * posted right behind a read of data failed CI's siw stage); only a read posted after the write
 * confirms it — one posted before it proves nothing, though a device may complete the write
 * first — and a write no later read confirmed gets its confirmation read once the reads drained;
 * reads of data wait only while confirmation reads are in flight. The device side: the kit's RMA
 * suites on siw0 in the VM.
 */
class WriteConfirmsTest {
    private final WriteConfirms confirms = new WriteConfirms(8);
    private final int[] scratch = new int[8];

    @Test
    void aWriteWithNoReadInFlightNeedsItsOwnConfirmReadAndReadsWaitForIt() {
        assertTrue(confirms.needsConfirmRead(0, 1), "no read of data in flight: the write's own confirm read");
        confirms.sent();
        assertTrue(confirms.readMustWait(), "a read of data waits while a confirm read is in flight");
        confirms.confirmed();
        assertFalse(confirms.readMustWait(), "and goes once it completed");
        assertFalse(confirms.due(), "nothing rides");
    }

    @Test
    void aWriteCompletingWhileALaterReadIsInFlightRidesOnItInOrder() {
        confirms.readStaged(5, 3); // writes 1 and 2, then the read, 3rd
        assertFalse(confirms.needsConfirmRead(1, 1), "a read posted after the write confirms it: no confirm read");
        assertFalse(confirms.needsConfirmRead(2, 2), "nor for the next write");
        assertFalse(confirms.readMustWait(), "no confirm read in flight: further reads of data go out");
        assertEquals(2, confirms.takeRiders(5, scratch), "the read's success completes both writes");
        assertArrayEquals(new int[] {1, 2}, Arrays.copyOf(scratch, 2), "in posting order");
        confirms.released(5);
        assertFalse(confirms.due(), "none left for a confirm read");
    }

    @Test
    void aReadPostedBeforeTheWriteDoesNotConfirmIt() {
        confirms.readStaged(5, 1); // the read first, then the write (2nd), which the device completes first
        assertFalse(confirms.needsConfirmRead(1, 2), "a read of data is in flight: no confirm read beside it");
        assertEquals(0, confirms.takeRiders(5, scratch), "the earlier read proves nothing of the write");
        confirms.released(5);
        assertTrue(confirms.due(), "no read came after it: it needs its confirm read now");
        assertEquals(1, confirms.drain(scratch));
        assertEquals(1, scratch[0]);
        assertFalse(confirms.due(), "once");
    }

    @Test
    void aLaterReadConfirmsWhatAnEarlierOneCouldNot() {
        confirms.readStaged(5, 1);
        assertFalse(confirms.needsConfirmRead(1, 2), "rides (read 1 was posted before it)");
        confirms.readStaged(6, 3); // a read posted after the write, while it rides
        assertEquals(0, confirms.takeRiders(5, scratch), "read 1: not for write 2");
        confirms.released(5);
        assertFalse(confirms.due(), "read 3 is in flight");
        assertEquals(1, confirms.takeRiders(6, scratch), "read 3 confirms write 2");
        assertEquals(1, scratch[0]);
    }

    @Test
    void aReleasedReadNoLongerCountsAndADroppedRiderIsGone() {
        confirms.readStaged(5, 1);
        confirms.readStaged(5, 1); // staged again (an RDM operation restaged): counted once
        confirms.released(5);
        assertTrue(confirms.needsConfirmRead(1, 2), "the read completed before the write did: confirm read");
        confirms.sent();
        confirms.confirmed();
        confirms.readStaged(6, 5);
        assertFalse(confirms.needsConfirmRead(2, 3), "rides on read 5");
        assertFalse(confirms.needsConfirmRead(3, 4), "rides on read 5");
        confirms.drop(2); // swept with its connection
        assertEquals(1, confirms.takeRiders(6, scratch), "only the write still riding");
        assertEquals(3, scratch[0]);
    }
}
