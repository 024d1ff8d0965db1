package io.jofi.provider.rxm;

/**
 * What the parts that send on a connection's behalf (segments, rendezvous writes) ask of the
 * send path ({@link RxmSendPath}): post or queue a transmit in the connection's order, and end
 * one for the application.
 */
interface RxmSendQueue {
    /** Posts {@code t} on its connection, or queues it while the connection is being made; 0, or a negative errno. */
    int submit(RxmTransmit t);

    /** Puts {@code t} at the end of {@code c}'s pending sends (posted in order by the next pass). */
    void queuePending(RxmConnection c, RxmTransmit t);

    /** Completes {@code t} for the application ({@code err} 0: success) and gives it back. */
    void finishSend(RxmTransmit t, int err);

    /** Ends {@code t} with {@code err}: a pooled control or segment transmit is given back, others complete. */
    void failTransmit(RxmTransmit t, int err);
}
