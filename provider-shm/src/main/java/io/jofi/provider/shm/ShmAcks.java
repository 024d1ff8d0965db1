package io.jofi.provider.shm;

/**
 * Where the ACK records a peer sends us go: the transmitter, which finds the operation the ACK
 * answers by its token and completes it (or takes a CMA probe's verdict). The record dispatch
 * sees the transmitter only through this door.
 */
interface ShmAcks {
    /** An ACK from {@code p} echoing {@code token}, with {@code status} 0 or a positive errno. */
    void onAck(Peer p, long token, int status);
}
