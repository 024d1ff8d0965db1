package io.jofi.provider.shm;

/**
 * The message a peer is sending this endpoint, from its first fragment to its last: what its
 * first record said (length, flags, token, tag, remote CQ data) and where its bytes go — the
 * posted receive that matched it, or the unexpected message buffering it — with the bytes a
 * too small receive dropped (truncation, R12).
 *
 * <p>One per {@link Peer}, reused for each of its messages (a sender never interleaves two of
 * its messages to one receiver); guarded by the endpoint's lock.
 */
final class ShmInboundMessage {
    /** The receive its fragments are placed in, or null. */
    ShmPostedReceive receive;
    /** The unexpected message its fragments are buffered in, or null. */
    ShmUnexpectedMessage unexpected;
    long total;
    /** The first record's kind and flags (TAGGED, HAS_DATA, ACK_ARRIVAL, ...). */
    int kindFlags;
    long token;
    long tag;
    long data;
    /** Bytes dropped so far (the receive is too small: R12). */
    long dropped;

    /** Takes a new message's header from its first record. */
    void start(ShmRecord first) {
        total = first.totalLength();
        kindFlags = first.kindFlags();
        token = first.token();
        tag = first.tag();
        data = first.messageData();
        dropped = 0;
    }

    /** Whether a message is in reassembly (its first fragment came, its last not yet). */
    boolean inProgress() {
        return receive != null || unexpected != null;
    }

    boolean tagged() {
        return (kindFlags & ShmRecordDescriptor.TAGGED) != 0;
    }

    boolean hasData() {
        return (kindFlags & ShmRecordDescriptor.HAS_DATA) != 0;
    }
}
