package io.jofi.spi.util.rxm;

/**
 * The fixed pool of {@link RxmTransmit}s (the RDM transmit queue): taken on post, given back
 * when the last completion of the operation came; found by index for a peer's answer.
 */
final class RxmTransmitPool {
    private final RxmTransmit[] all;
    private RxmTransmit free;
    private int inUse;

    RxmTransmitPool(int size, int eagerLimit) {
        all = new RxmTransmit[size];
        for (int i = size - 1; i >= 0; i--) {
            RxmTransmit t = new RxmTransmit(i, eagerLimit);
            all[i] = t;
            t.nextFree = free;
            free = t;
        }
    }

    /** A free transmit, or null when all are in flight (the post answers -EAGAIN). */
    RxmTransmit take() {
        RxmTransmit t = free;
        if (t == null) {
            return null;
        }
        free = t.nextFree;
        t.nextFree = null;
        t.inUse = true;
        inUse++;
        return t;
    }

    void give(RxmTransmit t) {
        t.reset();
        t.inUse = false;
        t.nextFree = free;
        free = t;
        inUse--;
    }

    /** The transmit in flight with this {@code msg_id}, or null. */
    RxmTransmit inFlight(long msgId) {
        if (msgId < 0 || msgId >= all.length) {
            return null;
        }
        RxmTransmit t = all[(int) msgId];
        return t.inUse ? t : null;
    }

    int inUse() {
        return inUse;
    }

    /** Every transmit (for failing what is in flight). */
    RxmTransmit[] all() {
        return all;
    }
}
