package io.jofi.provider.tcp;

import io.jofi.Fi;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import io.jofi.spi.util.UtilEventQueue;

/**
 * The objects a tcp endpoint's connections complete into (CQs, counters, EQ), copied from
 * the endpoint ({@link io.jofi.spi.util.UtilEndpoint}) at every bind so that the data path of
 * its connections reads plain fields. An MSG endpoint's connection and every per-peer connection of an RDM endpoint share
 * their endpoint's one instance. Written under the endpoint's lock before {@code enable};
 * read under it afterwards.
 */
final class DataPathBindings {
    UtilCompletionQueue txCq;
    UtilCompletionQueue rxCq;
    UtilEventQueue eq;
    UtilCounter sendCntr;
    UtilCounter recvCntr;
    UtilCounter writeCntr;
    UtilCounter readCntr;
    UtilCounter remoteWriteCntr;
    UtilCounter remoteReadCntr;
    volatile boolean selectiveTx;
    volatile boolean selectiveRx;

    /** Copies what the endpoint holds bound now (after each {@code bind}). */
    void update(UtilCompletionQueue tx, UtilCompletionQueue rx, boolean selectiveTransmit, boolean selectiveReceive,
                UtilEventQueue events, UtilCounter send, UtilCounter recv, UtilCounter read, UtilCounter write,
                UtilCounter remoteRead, UtilCounter remoteWrite) {
        txCq = tx;
        rxCq = rx;
        selectiveTx = selectiveTransmit;
        selectiveRx = selectiveReceive;
        eq = events;
        sendCntr = send;
        recvCntr = recv;
        readCntr = read;
        writeCntr = write;
        remoteReadCntr = remoteRead;
        remoteWriteCntr = remoteWrite;
    }

    /** The counter a transmit of {@code kind} ({@link TcpTransmitOp#SEND} ...) counts on, or null. */
    UtilCounter counterOf(int kind) {
        return switch (kind) {
            case TcpTransmitOp.SEND -> sendCntr;
            case TcpTransmitOp.WRITE, TcpTransmitOp.ATOMIC -> writeCntr;
            case TcpTransmitOp.READ, TcpTransmitOp.ATOMIC_FETCH -> readCntr;
            default -> null;
        };
    }
}
