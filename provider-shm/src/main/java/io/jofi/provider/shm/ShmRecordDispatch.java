package io.jofi.provider.shm;

import io.jofi.spi.util.CompletionBatch;

/**
 * Hands each validated record to the part its kind is for: messages to the receiver (CMA
 * messages and probes to the CMA receiver), ACKs to the transmitter, RMA and atomics to theirs;
 * and brackets a drain pass so that its receive completions are published together.
 *
 * <p>It is the endpoint's one table of record kinds, so it knows each part that handles one (and
 * nothing else of them). A kind it does not know throws, which fails the sender ({@code EPROTO}). Runs under
 * the endpoint's lock.
 */
final class ShmRecordDispatch implements ShmInbound {
    private final ShmReceiver receiver;
    private final ShmCmaReceiver cmaReceiver;
    private final ShmTransmitter transmitter;
    private final ShmRma rma;
    private final ShmAtomicOps atomics;
    /**
     * Receive completions of one drain pass, published together; the transmitter and RMA publish
     * them before an entry of theirs.
     */
    private final CompletionBatch staged;

    ShmRecordDispatch(ShmReceiver receiver, ShmCmaReceiver cmaReceiver, ShmTransmitter transmitter, ShmRma rma,
                      ShmAtomicOps atomics, CompletionBatch staged) {
        this.receiver = receiver;
        this.cmaReceiver = cmaReceiver;
        this.transmitter = transmitter;
        this.rma = rma;
        this.atomics = atomics;
        this.staged = staged;
    }

    @Override
    public void passStarts() {
        receiver.startPass();
        receiver.completion().stageIn(staged);
    }

    @Override
    public void passEnds() {
        receiver.completion().stageIn(null); // publishes what the pass staged
    }

    @Override
    public boolean holding() {
        return receiver.held();
    }

    @Override
    public boolean onRecord(Peer p, ShmRecord r) {
        ShmReceiver rx = receiver;
        rx.nextRecord();
        switch (r.kind()) {
            case ShmRecordDescriptor.MSG -> {
                if (r.has(ShmRecordDescriptor.CMA)) {
                    cmaReceiver.onMessage(p, r);
                } else {
                    rx.onMessage(p, r);
                }
            }
            case ShmRecordDescriptor.ACK -> transmitter.onAck(p, r.token(), r.status());
            case ShmRecordDescriptor.WRITE -> rma.onWrite(p, r);
            case ShmRecordDescriptor.READ_REQ -> rma.onReadRequest(p, r);
            case ShmRecordDescriptor.READ_RESP -> rma.onReadResponse(p, r);
            case ShmRecordDescriptor.ATOMIC_REQ -> atomics.onRequest(p, r);
            case ShmRecordDescriptor.ATOMIC_RESP -> atomics.onResponse(p, r);
            case ShmRecordDescriptor.NOTIFY -> rma.onNotify(p, r);
            case ShmRecordDescriptor.PROBE -> cmaReceiver.onProbe(p, r);
            default -> throw new IllegalArgumentException("record kind " + r.kind()); // the reader fails its sender (EPROTO)
        }
        return !rx.holdsRecord();
    }
}
