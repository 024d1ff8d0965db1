package io.jofi.spi.util;

/**
 * A message that arrived before a receive was posted for it ({@code fi_msg(3)},
 * {@code fi_tagged(3)} "unexpected messages"): its header and the provider's handle on its
 * bytes ({@link UnexpectedPayload}), while it waits in a {@link ReceiveQueue}. Pooled by the
 * queue ({@link ReceiveQueue#newUnexpected(long)}); the provider sets the header
 * ({@link #set}) and the payload, and never keeps it after the queue handed it to
 * {@link UnexpectedPayload#copyTo} or {@link UnexpectedPayload#discard}.
 *
 * <p>The provider's per-message data lives in two handle fields — an object (a heap buffer,
 * a descriptor, the connection it came on) and a number (a slot index, an ack sequence
 * number, a wire token) — so that one {@link UnexpectedPayload} serves every message.
 */
public final class UnexpectedMessage extends ArrivingMessage {
    UnexpectedPayload payload;
    Object handle;
    long handleValue;
    Object origin;
    /** Bytes it counts against the queue's unexpected-bytes limit. */
    long footprint;
    /** Its bytes are all there (a receive may take it without waiting). */
    boolean whole;
    /** Counted against the limits (between {@link ReceiveQueue#newUnexpected} and its end). */
    boolean counted;
    /** Set by {@code FI_PEEK | FI_CLAIM}: only {@code FI_CLAIM} with this context takes it. */
    Object claimedBy;
    /** A receive that took it before it was whole: completes when it is ({@link ReceiveQueue#arrived}). */
    PostedReceive waiting;
    /** Dropped ({@code FI_DISCARD}) while its bytes were still arriving: recycled once they have. */
    boolean dropped;
    /** The queue it is on (null when on none) and its links there: arrival order, tag chain. */
    UnexpectedMessageQueue list;
    UnexpectedMessage prev;
    UnexpectedMessage next;
    UnexpectedMessage bprev;
    UnexpectedMessage bnext;

    UnexpectedMessage() {
    }

    /** As {@link ArrivingMessage#set}; returns this message. */
    @Override
    public UnexpectedMessage set(boolean tagged, long tag, boolean hasData, long data, long src, byte[] sourceAddress,
                                 long length) {
        super.set(tagged, tag, hasData, data, src, sourceAddress, length);
        return this;
    }

    /**
     * Sets where its bytes are.
     *
     * @param payload     the provider's storage of it (required)
     * @param handle      the provider's object for this message (e.g. its heap buffer), or null
     * @param handleValue the provider's number for this message (e.g. a slot, a token)
     * @return this
     */
    public UnexpectedMessage payload(UnexpectedPayload payload, Object handle, long handleValue) {
        this.payload = payload;
        this.handle = handle;
        this.handleValue = handleValue;
        return this;
    }

    /** The connection or peer it came on (the provider's; for its own bookkeeping), or null. */
    public UnexpectedMessage origin(Object origin) {
        this.origin = origin;
        return this;
    }

    /** The provider's object for this message. */
    public Object handle() {
        return handle;
    }

    /** The provider's number for this message. */
    public long handleValue() {
        return handleValue;
    }

    /** The connection or peer it came on, or null. */
    public Object origin() {
        return origin;
    }

    /** Bytes it counts against the unexpected-bytes limit. */
    public long footprint() {
        return footprint;
    }

    /** Whether all its bytes have arrived. */
    public boolean isWhole() {
        return whole;
    }

    /**
     * Whether a receive took it before it was whole and waits for {@link ReceiveQueue#arrived}:
     * a provider that fetches a message's bytes only once it is matched (a rendezvous) starts now.
     */
    public boolean hasWaitingReceive() {
        return waiting != null;
    }

    /**
     * The capacity of the receive that waits for it ({@link #hasWaitingReceive}), else 0: a
     * provider that fetches the bytes only now needs room for no more than that.
     */
    public long waitingCapacity() {
        return waiting == null ? 0 : waiting.capacity();
    }

    /**
     * Whether it was dropped ({@code FI_DISCARD}) before it was whole: nobody will take it, but
     * the provider still ends it with {@link ReceiveQueue#arrived} or {@link ReceiveQueue#abandon}.
     */
    public boolean isDropped() {
        return dropped;
    }

    /** The context of the {@code FI_PEEK | FI_CLAIM} that set it aside, or null. */
    public Object claimedBy() {
        return claimedBy;
    }

    /**
     * The next queued message of the same kind (tagged or not) in arrival order, or null: with
     * {@link ReceiveQueue#firstUnexpected(boolean)} a provider walks its messages (e.g. to
     * discard those of a peer that failed).
     */
    public UnexpectedMessage nextQueued() {
        return next;
    }

    void reset() {
        clearHeader();
        payload = null;
        handle = null;
        handleValue = 0;
        origin = null;
        footprint = 0;
        whole = false;
        counted = false;
        claimedBy = null;
        waiting = null;
        dropped = false;
        list = null;
        prev = next = bprev = bnext = null;
    }
}
