package io.jofi.spi.util;

import java.util.Arrays;

/**
 * The unexpected messages of one kind (untagged or tagged) of a {@link ReceiveQueue} in
 * arrival order, as an intrusive doubly-linked list: appending and removing any entry cost
 * O(1) and allocate nothing (the links are fields of {@link UnexpectedMessage}). An array list
 * made each removal from its front cost the whole list (1.06 M buffered messages drained at ~330/s before).
 *
 * <p>The tagged list also keeps a tag index: every entry is on a second chain of the entries
 * whose tag falls into the same bucket, in arrival order, so a receive with an exact tag
 * (no ignore bits) finds the oldest message of that tag by walking only that chain
 * ({@link #firstWithTag}, {@link #nextWithTag}) — O(1) expected while the bucket table is at
 * least as large as the list (it doubles, rehashing in arrival order, amortized O(1); it
 * never shrinks). Receives with ignore bits walk the whole list in arrival order
 * ({@link #head()}, {@link UnexpectedMessage#next}).
 *
 * <p>Not thread-safe: the queue's owner serialises.
 */
final class UnexpectedMessageQueue {
    private static final int MIN_BUCKETS = 64;

    private final boolean indexed;
    private UnexpectedMessage head;
    private UnexpectedMessage tail;
    private int size;
    private UnexpectedMessage[] bucketHeads;
    private UnexpectedMessage[] bucketTails;

    /** @param indexed whether to keep the tag index (tagged messages) */
    UnexpectedMessageQueue(boolean indexed) {
        this.indexed = indexed;
        if (indexed) {
            bucketHeads = new UnexpectedMessage[MIN_BUCKETS];
            bucketTails = new UnexpectedMessage[MIN_BUCKETS];
        }
    }

    /** The oldest entry, or null. */
    UnexpectedMessage head() {
        return head;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Whether {@code u} is on this list. */
    boolean contains(UnexpectedMessage u) {
        return u != null && u.list == this;
    }

    /** Appends {@code u} (newest); it must not be on a list. */
    void add(UnexpectedMessage u) {
        if (u.list != null) {
            throw new IllegalStateException("the entry is on a list already");
        }
        u.list = this;
        u.prev = tail;
        u.next = null;
        if (tail == null) {
            head = u;
        } else {
            tail.next = u;
        }
        tail = u;
        size++;
        if (indexed) {
            if (size > bucketHeads.length) {
                rehash(bucketHeads.length * 2);
            } else {
                link(u, bucket(u.tag, bucketHeads.length));
            }
        }
    }

    /**
     * Removes {@code u} if it is on this list.
     *
     * @return whether it was
     */
    boolean remove(UnexpectedMessage u) {
        if (u == null || u.list != this) {
            return false;
        }
        if (u.prev == null) {
            head = u.next;
        } else {
            u.prev.next = u.next;
        }
        if (u.next == null) {
            tail = u.prev;
        } else {
            u.next.prev = u.prev;
        }
        if (indexed) {
            int b = bucket(u.tag, bucketHeads.length);
            if (u.bprev == null) {
                bucketHeads[b] = u.bnext;
            } else {
                u.bprev.bnext = u.bnext;
            }
            if (u.bnext == null) {
                bucketTails[b] = u.bprev;
            } else {
                u.bnext.bprev = u.bprev;
            }
        }
        u.prev = u.next = u.bprev = u.bnext = null;
        u.list = null;
        size--;
        return true;
    }

    /** The oldest entry with exactly {@code tag} (tag index), or null; the list must be indexed. */
    UnexpectedMessage firstWithTag(long tag) {
        UnexpectedMessage u = bucketHeads[bucket(tag, bucketHeads.length)];
        while (u != null && u.tag != tag) {
            u = u.bnext;
        }
        return u;
    }

    /** The next entry after {@code u} with the same tag, in arrival order, or null. */
    UnexpectedMessage nextWithTag(UnexpectedMessage u) {
        long tag = u.tag;
        UnexpectedMessage n = u.bnext;
        while (n != null && n.tag != tag) {
            n = n.bnext;
        }
        return n;
    }

    private void link(UnexpectedMessage u, int b) {
        u.bnext = null;
        u.bprev = bucketTails[b];
        if (bucketTails[b] == null) {
            bucketHeads[b] = u;
        } else {
            bucketTails[b].bnext = u;
        }
        bucketTails[b] = u;
    }

    /** Rebuilds the tag chains for {@code buckets} buckets, in arrival order (so each chain stays ordered). */
    private void rehash(int buckets) {
        bucketHeads = new UnexpectedMessage[buckets];
        bucketTails = new UnexpectedMessage[buckets];
        for (UnexpectedMessage u = head; u != null; u = u.next) {
            link(u, bucket(u.tag, buckets));
        }
    }

    /** Spreads the tag's bits (tags often differ in high or low bits only). */
    private static int bucket(long tag, int buckets) {
        long h = tag * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & (buckets - 1);
    }

    @Override
    public String toString() {
        return "UnexpectedMessageQueue[" + size + (indexed ? ", " + bucketHeads.length + " buckets" : "") + "]";
    }

    /** Test support: every entry from head to tail. */
    UnexpectedMessage[] toArray() {
        UnexpectedMessage[] a = new UnexpectedMessage[size];
        int i = 0;
        for (UnexpectedMessage u = head; u != null; u = u.next) {
            a[i++] = u;
        }
        return Arrays.copyOf(a, i);
    }
}
