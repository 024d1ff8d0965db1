package io.jofi.provider.tcp;

import io.jofi.Fi;
import io.jofi.spi.util.EndpointBindings;
import io.jofi.spi.util.UtilCompletionQueue;
import io.jofi.spi.util.UtilCounter;
import io.jofi.spi.util.UtilEventQueue;

/**
 * The objects a tcp endpoint's connections complete into (CQs, counters, EQ), copied out of
 * the endpoint's {@link EndpointBindings} at every bind so that the data path reads plain
 * fields. An MSG endpoint's connection and every per-peer connection of an RDM endpoint share
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

    /** Copies what {@code b} holds now (after each {@code bind}). */
    void update(EndpointBindings b) {
        txCq = b.txCq();
        rxCq = b.rxCq();
        selectiveTx = b.selectiveTx();
        selectiveRx = b.selectiveRx();
        eq = b.eq();
        sendCntr = b.counter(Fi.FI_SEND);
        recvCntr = b.counter(Fi.FI_RECV);
        readCntr = b.counter(Fi.FI_READ);
        writeCntr = b.counter(Fi.FI_WRITE);
        remoteReadCntr = b.counter(Fi.FI_REMOTE_READ);
        remoteWriteCntr = b.counter(Fi.FI_REMOTE_WRITE);
    }

    /** {@code FI_COMPLETION} unless the transmit CQ was bound with {@code FI_SELECTIVE_COMPLETION}. */
    long txCompletion() {
        return selectiveTx ? 0 : Fi.FI_COMPLETION;
    }

    /** {@code FI_COMPLETION} unless the receive CQ was bound with {@code FI_SELECTIVE_COMPLETION}. */
    long rxCompletion() {
        return selectiveRx ? 0 : Fi.FI_COMPLETION;
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
