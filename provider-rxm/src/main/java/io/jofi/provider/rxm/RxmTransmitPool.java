package io.jofi.provider.rxm;

/**
 * The fixed pool of {@link RxmTransmit}s (the RDM transmit queue): taken on post, given back
 * when the last completion of the operation came; found by index for a peer's answer. Beyond
 * the queue's size it holds two reserves. {@link #ANSWER_RESERVE} transmits for our answers to
 * a peer's operations — a rendezvous read-done or write offer, an atomic response
 * ({@link #takeForAnswer}): they free the peer's transmits, so they must not wait for ours,
 * which our own sends may hold until the peer answers them (two peers whose queues were full of
 * rendezvous sends to each other waited for ever for each other's read-done). And
 * {@link #GRANT_RESERVE}, which only credit grants take ({@link #takeForGrant}): a grant must
 * go out even when every other transmit waits for credits, or two peers whose queues are full
 * of sends could wait for each other's grants for ever.
 */
final class RxmTransmitPool {
    /** Transmits kept for credit grants ({@link RxmCreditGrants}). */
    static final int GRANT_RESERVE = 1;
    /** Transmits kept for answers to a peer's operations (and grants), beyond the queue's size. */
    static final int ANSWER_RESERVE = 2;

    private final RxmTransmit[] all;
    private RxmTransmit free;
    private int inUse;
    private int freeCount;

    /** The transmits' packet buffers, one block. */
    private final RxmPacketMemory memory;

    RxmTransmitPool(int queueSize, int eagerLimit) {
        int size = queueSize + ANSWER_RESERVE + GRANT_RESERVE;
        all = new RxmTransmit[size];
        freeCount = size;
        memory = new RxmPacketMemory(size, RxmWireDescriptor.HEADER_LENGTH + eagerLimit);
        for (int i = size - 1; i >= 0; i--) {
            RxmTransmit t = new RxmTransmit(i, memory.buffer(i));
            all[i] = t;
            t.nextFree = free;
            free = t;
        }
    }

    /** A free transmit, or null when the queue's size are in flight (the post answers -EAGAIN). */
    RxmTransmit take() {
        return freeCount > ANSWER_RESERVE + GRANT_RESERVE ? takeFree() : null;
    }

    /** A free transmit for an answer to a peer's operation, its reserve included; null when only the grants' is left. */
    RxmTransmit takeForAnswer() {
        return freeCount > GRANT_RESERVE ? takeFree() : null;
    }

    /** A free transmit for a credit grant, the reserve included; null when none is free. */
    RxmTransmit takeForGrant() {
        return takeFree();
    }

    private RxmTransmit takeFree() {
        RxmTransmit t = free;
        if (t == null) {
            return null;
        }
        freeCount--;
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
        freeCount++;
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

    /** Registers the packet buffers with the MSG domain ({@link RxmPacketMemory#nativeMemory}): their desc goes with each post. */
    void register(io.jofi.Domain domain) throws io.jofi.FabricException {
        memory.register(domain);
        for (RxmTransmit t : all) {
            t.packetDesc = memory.desc();
        }
    }

    /** Undoes {@link #register} (the endpoint closed: nothing is posted from the packets any more). */
    void unregister() {
        for (RxmTransmit t : all) {
            t.packetDesc = null;
        }
        memory.close();
    }

    /** Every transmit (for failing what is in flight). */
    RxmTransmit[] all() {
        return all;
    }
}
