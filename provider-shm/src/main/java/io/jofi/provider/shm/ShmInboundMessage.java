package io.jofi.provider.shm;

import io.jofi.spi.util.ArrivingMessage;
import io.jofi.spi.util.PostedReceive;
import io.jofi.spi.util.UnexpectedMessage;

/**
 * The message a peer is sending this endpoint, from its first record to its last: its header
 * as the receive side matches and completes it ({@link ArrivingMessage}: tag, remote CQ data,
 * sender, length), what shm's wire adds (the record's flags, the sender's token for an
 * acknowledgement), and where its bytes go — the posted receive that matched it, or the
 * unexpected message buffering it — with the bytes placed or buffered so far.
 *
 * <p>One per {@link Peer}, reused for each of its messages (a sender never interleaves two of
 * its messages to one receiver): nothing is allocated per message. Guarded by the endpoint's
 * lock.
 */
final class ShmInboundMessage extends ArrivingMessage {
    /** The receive its fragments are placed in, or null. */
    PostedReceive receive;
    /** The unexpected message its fragments are buffered in (its handle: the heap bytes), or null. */
    UnexpectedMessage unexpected;
    /** Bytes placed into {@link #receive}, or buffered into {@link #unexpected}, so far. */
    long placed;
    /** The first record's kind and flags (ACK_ARRIVAL, ACK_MATCH, ...). */
    int kindFlags;
    /** The sender's token of the message, echoed by an acknowledgement. */
    long token;

    /**
     * Takes a new message's header from its first (or only) record; {@code src} is the
     * sender's {@code fi_addr} (FI_ADDR_NOTAVAIL when not in the AV or not needed) and
     * {@code sourceAddress} its raw address when not in the AV.
     */
    ShmInboundMessage start(ShmRecord first, long src, byte[] sourceAddress) {
        kindFlags = first.kindFlags();
        token = first.token();
        placed = 0;
        set(first.has(ShmRecordDescriptor.TAGGED), first.tag(), first.has(ShmRecordDescriptor.HAS_DATA),
                first.messageData(), src, sourceAddress, first.totalLength());
        return this;
    }

    /** Whether a message is in reassembly (its first fragment came, its last not yet). */
    boolean inProgress() {
        return receive != null || unexpected != null;
    }
}
