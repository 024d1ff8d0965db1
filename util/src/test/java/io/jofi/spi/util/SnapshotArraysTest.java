package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** {@link SnapshotArrays}: a new array for every change, the old one untouched (a loop may be walking it). */
class SnapshotArraysTest {
    private final String a = "a";
    private final String b = "b";
    private final String c = "c";

    @Test
    void withAppendsToACopy() {
        String[] none = new String[0];
        String[] one = SnapshotArrays.with(none, a);
        assertArrayEquals(new String[] {a}, one);
        assertArrayEquals(new String[0], none, "the array a loop may hold is unchanged");
        assertArrayEquals(new String[] {a, b}, SnapshotArrays.with(one, b));
    }

    @Test
    void withoutRemovesTheFirstIdenticalElementFromACopy() {
        String[] abc = {a, b, c};
        assertArrayEquals(new String[] {b, c}, SnapshotArrays.without(abc, a));
        assertArrayEquals(new String[] {a, c}, SnapshotArrays.without(abc, b));
        assertArrayEquals(new String[] {a, b}, SnapshotArrays.without(abc, c));
        assertArrayEquals(new String[] {a, b, c}, abc, "unchanged");
        String twin = new String("b");
        assertSame(abc, SnapshotArrays.without(abc, twin), "identity, not equals: nothing removed, the same array");
        String[] bb = {b, b};
        String[] oneB = SnapshotArrays.without(bb, b);
        assertArrayEquals(new String[] {b}, oneB);
        assertNotSame(bb, oneB);
        assertArrayEquals(new String[0], SnapshotArrays.without(new String[] {a}, a));
    }
}
