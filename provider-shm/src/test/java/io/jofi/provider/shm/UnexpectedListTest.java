package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link UnexpectedList}: arrival order, O(1) removal anywhere, the tag chains, growth. */
class UnexpectedListTest {

    private static ShmUnexpectedMessage entry(long tag) {
        return new ShmUnexpectedMessage(null, true, tag, false, 0, 0, 0, 0);
    }

    @Test
    void keepsArrivalOrderAndRemovesAnywhere() {
        UnexpectedList l = new UnexpectedList(false);
        assertTrue(l.isEmpty());
        assertNull(l.head());
        ShmUnexpectedMessage a = entry(0);
        ShmUnexpectedMessage b = entry(0);
        ShmUnexpectedMessage c = entry(0);
        ShmUnexpectedMessage d = entry(0);
        l.add(a);
        l.add(b);
        l.add(c);
        l.add(d);
        assertArrayEquals(new ShmUnexpectedMessage[] {a, b, c, d}, l.toArray());
        assertTrue(l.remove(c)); // middle
        assertArrayEquals(new ShmUnexpectedMessage[] {a, b, d}, l.toArray());
        assertTrue(l.remove(a)); // head
        assertSame(b, l.head());
        assertTrue(l.remove(d)); // tail
        assertArrayEquals(new ShmUnexpectedMessage[] {b}, l.toArray());
        l.add(a);
        assertArrayEquals(new ShmUnexpectedMessage[] {b, a}, l.toArray(), "a removed entry can be appended again");
        assertEquals(2, l.size());
    }

    @Test
    void removingWhatIsNotOnTheListChangesNothing() {
        UnexpectedList l = new UnexpectedList(true);
        UnexpectedList other = new UnexpectedList(true);
        ShmUnexpectedMessage a = entry(1);
        ShmUnexpectedMessage b = entry(1);
        l.add(a);
        other.add(b);
        assertFalse(l.remove(b), "an entry of another list");
        assertFalse(l.remove(null));
        assertFalse(l.remove(entry(1)), "an entry of no list");
        assertTrue(l.remove(a));
        assertFalse(l.remove(a), "twice");
        assertTrue(l.isEmpty());
        assertEquals(1, other.size());
        assertThrows(IllegalStateException.class, () -> l.add(b), "an entry on another list is refused");
        assertFalse(l.contains(b));
        assertTrue(other.contains(b));
    }

    @Test
    void tagChainsFindTheOldestOfATagInOrder() {
        UnexpectedList l = new UnexpectedList(true);
        List<ShmUnexpectedMessage> sevens = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            ShmUnexpectedMessage u = entry(i % 10 == 3 ? 7 : i + 100);
            l.add(u);
            if (u.tag == 7) {
                sevens.add(u);
            }
        }
        List<ShmUnexpectedMessage> walked = new ArrayList<>();
        for (ShmUnexpectedMessage u = l.firstWithTag(7); u != null; u = l.nextWithTag(u)) {
            walked.add(u);
        }
        assertEquals(sevens, walked, "the tag chain holds every message of the tag, oldest first, after growth");
        assertNull(l.firstWithTag(5), "a tag nobody sent");
        l.remove(sevens.get(0));
        assertSame(sevens.get(1), l.firstWithTag(7), "removing the oldest makes the next one first");
        l.remove(sevens.get(5));
        assertSame(sevens.get(6), l.nextWithTag(sevens.get(4)), "removal from the middle of a chain");
    }

    /** Random adds and removals against a reference list: order and tag chains always agree. */
    @Test
    void randomOperationsAgreeWithAReferenceList() {
        Random r = new Random(12);
        UnexpectedList l = new UnexpectedList(true);
        List<ShmUnexpectedMessage> ref = new ArrayList<>();
        for (int step = 0; step < 200_000; step++) {
            if (ref.isEmpty() || r.nextInt(3) != 0) {
                ShmUnexpectedMessage u = entry(r.nextInt(50) * 0x1_0000_0000L);
                l.add(u);
                ref.add(u);
            } else {
                ShmUnexpectedMessage u = ref.remove(r.nextInt(ref.size()));
                assertTrue(l.remove(u));
            }
            if (step % 20_000 == 0) {
                assertArrayEquals(ref.toArray(), l.toArray());
                long tag = r.nextInt(50) * 0x1_0000_0000L;
                ShmUnexpectedMessage expected = ref.stream().filter(u -> u.tag == tag).findFirst().orElse(null);
                assertSame(expected, l.firstWithTag(tag));
            }
        }
        assertEquals(ref.size(), l.size());
    }

    /** Take from the head of a long list: each removal is O(1) (a former array list copied the whole list each time). */
    @Test
    void headRemovalDoesNotDependOnTheLength() {
        UnexpectedList l = new UnexpectedList(true);
        int n = 1_000_000;
        for (int i = 0; i < n; i++) {
            l.add(entry(i & 7));
        }
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            ShmUnexpectedMessage u = l.firstWithTag(i & 7);
            assertTrue(l.remove(u));
        }
        long took = System.nanoTime() - start;
        assertTrue(l.isEmpty());
        // a quadratic drain of 10^6 entries takes minutes; this bound only catches that
        assertTrue(took < 20_000_000_000L, "1 M head removals took " + took / 1_000_000 + " ms");
    }
}
