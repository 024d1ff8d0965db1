package io.jofi.provider.tcp;

/**
 * A bounded FIFO of pooled operation descriptors (posted receives, queued sends, sends waiting
 * for their ack), an array ring so that queueing allocates nothing. Not thread-safe: the
 * owning endpoint's lock guards it.
 */
final class OpRing<T> {
    private final Object[] ring;
    private final int mask;
    private long head;
    private long tail;

    /** @param capacity at least 1; rounded up to a power of two */
    OpRing(int capacity) {
        int c = Integer.highestOneBit(Math.max(1, capacity - 1)) << 1;
        ring = new Object[c];
        mask = c - 1;
    }

    boolean isEmpty() {
        return head == tail;
    }

    int size() {
        return (int) (tail - head);
    }

    boolean isFull() {
        return tail - head == ring.length;
    }

    /** Appends; false when full. */
    boolean offer(T op) {
        if (isFull()) {
            return false;
        }
        ring[(int) (tail++ & mask)] = op;
        return true;
    }

    @SuppressWarnings("unchecked")
    T peek() {
        return head == tail ? null : (T) ring[(int) (head & mask)];
    }

    @SuppressWarnings("unchecked")
    T poll() {
        if (head == tail) {
            return null;
        }
        int i = (int) (head++ & mask);
        T op = (T) ring[i];
        ring[i] = null;
        return op;
    }
}
