package io.jofi.spi.util;

/**
 * Posted receives of one kind (untagged, tagged, or waiting for an unexpected message still
 * arriving) of a {@link ReceiveQueue}, in posting order, as an intrusive doubly-linked list:
 * appending and removing any receive cost O(1) and allocate nothing (the links are fields of
 * {@link PostedReceive}). Not thread-safe: the queue's owner serialises.
 */
final class PostedReceiveQueue {
    private PostedReceive head;
    private PostedReceive tail;
    private int size;

    PostedReceive head() {
        return head;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    boolean contains(PostedReceive r) {
        return r != null && r.list == this;
    }

    /** Appends {@code r} (newest); it must not be on a list. */
    void add(PostedReceive r) {
        r.list = this;
        r.prev = tail;
        r.next = null;
        if (tail == null) {
            head = r;
        } else {
            tail.next = r;
        }
        tail = r;
        size++;
    }

    /** Removes {@code r} if it is on this list; returns whether it was. */
    boolean remove(PostedReceive r) {
        if (r == null || r.list != this) {
            return false;
        }
        if (r.prev == null) {
            head = r.next;
        } else {
            r.prev.next = r.next;
        }
        if (r.next == null) {
            tail = r.prev;
        } else {
            r.next.prev = r.prev;
        }
        r.prev = r.next = null;
        r.list = null;
        size--;
        return true;
    }

    /** Removes and returns the oldest, or null. */
    PostedReceive poll() {
        PostedReceive r = head;
        if (r != null) {
            remove(r);
        }
        return r;
    }
}
