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
 * posted right behind a read of data failed CI's siw stage), and reads of data wait only while
 * confirmation reads are in flight. The device side: the kit's RMA suites on siw0 in the VM.
 */
class WriteConfirmsTest {
    private final WriteConfirms confirms = new WriteConfirms(8);
    private final int[] scratch = new int[8];

    @Test
    void aWriteWithNoReadInFlightNeedsItsOwnConfirmReadAndReadsWaitForIt() {
        assertTrue(confirms.needsConfirmRead(0), "no read of data in flight: the write's own confirm read");
        confirms.sent();
        assertTrue(confirms.readMustWait(), "a read of data waits while a confirm read is in flight");
        confirms.confirmed();
        assertFalse(confirms.readMustWait(), "and goes once it completed");
        assertEquals(0, confirms.takeRiders(scratch), "nothing rides");
    }

    @Test
    void aWriteCompletingWhileALaterReadIsInFlightRidesOnItInOrder() {
        confirms.readStaged(5);
        assertFalse(confirms.needsConfirmRead(1), "a read posted after the write confirms it: no confirm read");
        assertFalse(confirms.needsConfirmRead(2), "nor for the next write");
        assertFalse(confirms.readMustWait(), "no confirm read in flight: further reads of data go out");
        assertEquals(2, confirms.takeRiders(scratch), "the read's success completes both writes");
        assertArrayEquals(new int[] {1, 2}, Arrays.copyOf(scratch, 2), "in posting order");
        assertEquals(0, confirms.takeRiders(scratch), "once");
    }

    @Test
    void aReleasedReadNoLongerConfirmsAndADroppedRiderIsGone() {
        confirms.readStaged(5);
        confirms.readStaged(5); // staged again (an RDM operation restaged): counted once
        confirms.released(5);
        assertTrue(confirms.needsConfirmRead(1), "the read completed before the write did: it confirms nothing");
        confirms.sent();
        confirms.confirmed();
        confirms.readStaged(6);
        assertFalse(confirms.needsConfirmRead(2), "rides on read 6");
        assertFalse(confirms.needsConfirmRead(3), "rides on read 6");
        confirms.drop(2); // swept with its connection
        assertEquals(1, confirms.takeRiders(scratch), "only the write still riding");
        assertEquals(3, scratch[0]);
    }
}
