package io.jofi.spi.util;

/**
 * Where a provider keeps the bytes of an unexpected message, and how they reach a receive:
 * heap bytes, a bounce slot, a CMA descriptor of the sender's memory, a native buffer. The
 * provider implements it once (one object per endpoint, or one per kind of storage) and puts
 * the per-message part in the message's handle ({@link UnexpectedMessage#payload(UnexpectedPayload,
 * Object, long)}): so nothing is allocated per message for it.
 *
 * <p>{@link ReceiveQueue} calls exactly one of the two methods for each message it queued,
 * with the owner's serialisation held; afterwards the message goes back to the queue's pool,
 * so the provider must not keep a reference to it.
 */
public interface UnexpectedPayload {
    /**
     * A receive takes the message: copy its bytes into {@code into} (at most
     * {@link PostedReceive#capacity()}; {@link PostedReceive#place} writes into its buffers),
     * free the storage, and answer the sender what it is owed now (an acknowledgement asked
     * for at match time, R11: before the receive's completion, which the queue writes after
     * this returns).
     *
     * @return the bytes placed (the rest of the message is discarded: {@code ETRUNC}, R12), or
     *         a negative errno when the bytes cannot be read any more (the sender's memory is
     *         gone): the receive then completes with that error
     */
    long copyTo(UnexpectedMessage message, PostedReceive into);

    /**
     * The message leaves without being received ({@code FI_DISCARD}, or the provider
     * discards it with {@link ReceiveQueue#discard}): free its storage and answer the sender
     * if it still waits for an answer.
     */
    void discard(UnexpectedMessage message);
}
