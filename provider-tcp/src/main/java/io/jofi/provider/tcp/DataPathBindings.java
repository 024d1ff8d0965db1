package io.jofi.provider.tcp;

import io.jofi.Fi;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import io.jofi.spi.util.UtilEventQueue;

/**
 * The objects a tcp endpoint's connections complete into (CQs, counters, EQ), copied from
 * the endpoint ({@link io.jofi.spi.util.UtilEndpoint}) at every bind so that the data path of
 * its connections reads plain fields (through getters the JIT inlines). An MSG endpoint's connection and every per-peer connection of an RDM endpoint share
 * their endpoint's one instance. Written under the endpoint's lock before {@code enable};
 * read under it afterwards.
 */
final class DataPathBindings {
    private UtilCompletionQueue txCq;
    private UtilCompletionQueue rxCq;
    private UtilEventQueue eq;
    private UtilCounter sendCntr;
    private UtilCounter recvCntr;
    private UtilCounter writeCntr;
    private UtilCounter readCntr;
    private UtilCounter remoteWriteCntr;
    private UtilCounter remoteReadCntr;
    private volatile boolean selectiveTx;
    private volatile boolean selectiveRx;

    /** The transmit CQ, or null. */
    UtilCompletionQueue txCq() {
        return txCq;
    }

    /** The receive CQ, or null. */
    UtilCompletionQueue rxCq() {
        return rxCq;
    }

    /** The event queue, or null. */
    UtilEventQueue eq() {
        return eq;
    }

    /** The FI_SEND counter, or null. */
    UtilCounter sendCntr() {
        return sendCntr;
    }

    /** The FI_RECV counter, or null. */
    UtilCounter recvCntr() {
        return recvCntr;
    }

    /** The FI_WRITE counter, or null. */
    UtilCounter writeCntr() {
        return writeCntr;
    }

    /** The FI_READ counter, or null. */
    UtilCounter readCntr() {
        return readCntr;
    }

    /** The FI_REMOTE_WRITE counter, or null. */
    UtilCounter remoteWriteCntr() {
        return remoteWriteCntr;
    }

    /** The FI_REMOTE_READ counter, or null. */
    UtilCounter remoteReadCntr() {
        return remoteReadCntr;
    }

    /** Whether the transmit CQ was bound with FI_SELECTIVE_COMPLETION. */
    boolean selectiveTx() {
        return selectiveTx;
    }

    /** Whether the receive CQ was bound with FI_SELECTIVE_COMPLETION. */
    boolean selectiveRx() {
        return selectiveRx;
    }

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
