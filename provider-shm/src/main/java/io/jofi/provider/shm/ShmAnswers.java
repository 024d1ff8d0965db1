package io.jofi.provider.shm;

/**
 * The one thing the receiving parts ask of the transmitter: to queue an answer this endpoint owes
 * a peer (an ACK of a message, a CMA read's status, a probe's verdict). {@link ShmTransmitter}
 * implements it; the receiver and the CMA receiver see only this door.
 */
interface ShmAnswers {
    /** Queues an answer of {@code kind} echoing {@code token} towards {@code peer}; a failed peer gets none. */
    void sendAnswer(Peer peer, int kind, long token, int status, long b, int flags);
}
