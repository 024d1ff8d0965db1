package io.jofi.provider.shm;

/**
 * Hands each validated record to the part its kind is for: messages to the receiver (CMA
 * messages and probes to the CMA receiver), ACKs to the transmitter, the one-sided kinds (RMA,
 * atomics) to {@link ShmOneSidedDispatch}; and brackets a drain pass so that its receive
 * completions are published together (the receiver stages them).
 *
 * <p>It is the endpoint's table of message kinds, so it knows each part that handles one (and
 * nothing else of them). A kind nobody knows throws, which fails the sender ({@code EPROTO}). Runs
 * under the endpoint's lock.
 */
final class ShmRecordDispatch implements ShmInbound {
    private final ShmReceiver receiver;
    private final ShmCmaReceiver cmaReceiver;
    private final ShmAcks acks;
    private final ShmOneSidedDispatch oneSided;

    ShmRecordDispatch(ShmReceiver receiver, ShmCmaReceiver cmaReceiver, ShmAcks acks, ShmOneSidedDispatch oneSided) {
        this.receiver = receiver;
        this.cmaReceiver = cmaReceiver;
        this.acks = acks;
        this.oneSided = oneSided;
    }

    @Override
    public void passStarts() {
        receiver.startPass();
    }

    @Override
    public void passEnds() {
        receiver.endPass(); // publishes what the pass staged
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
            case ShmRecordDescriptor.ACK -> acks.onAck(p, r.token(), r.status());
            case ShmRecordDescriptor.PROBE -> cmaReceiver.onProbe(p, r);
            default -> oneSided.onRecord(p, r);
        }
        return !rx.holdsRecord();
    }
}
