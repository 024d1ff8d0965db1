package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Acks leave in the order their messages arrived, whatever order they become ready in. */
class AckSequencerTest {
    @Test
    void onlyTheReadyPrefixIsReleased() {
        AckSequencer s = new AckSequencer();
        long a = s.assign();
        long b = s.assign();
        long c = s.assign();
        s.ready(c);
        s.ready(b);
        assertEquals(0, s.drain(), "the first is not ready: nothing leaves");
        s.ready(a);
        assertEquals(3, s.drain(), "then all three in order");
        assertEquals(0, s.drain());
    }

    @Test
    void sequenceNumbersWrapAroundTheRing() {
        AckSequencer s = new AckSequencer();
        for (int i = 0; i < 300_000; i++) {
            s.ready(s.assign());
            assertEquals(1, s.drain());
        }
    }

    @Test
    void tooManyHeldBackIsRefused() {
        AckSequencer s = new AckSequencer();
        long first = s.assign();
        int n = 1;
        while (s.assign() >= 0) {
            n++;
        }
        assertEquals(1 << 17, n, "the ring holds 2^17 outstanding acks");
        s.ready(first);
        assertEquals(1, s.drain());
        assertEquals(1 << 17, s.assign(), "room again after a release");
    }
}
