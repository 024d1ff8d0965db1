package io.jofi.provider.shm;

/**
 * Hands the records of one-sided operations to their parts: RMA writes, read requests and
 * responses and notifications to {@link ShmRma}, atomic requests and responses to
 * {@link ShmAtomicOps}. The second half of the endpoint's table of record kinds
 * ({@link ShmRecordDispatch} keeps the message kinds): a kind neither knows throws, which fails
 * the sender ({@code EPROTO}). Runs under the endpoint's lock.
 */
final class ShmOneSidedDispatch {
    private final ShmRma rma;
    private final ShmAtomicOps atomics;

    ShmOneSidedDispatch(ShmRma rma, ShmAtomicOps atomics) {
        this.rma = rma;
        this.atomics = atomics;
    }

    /** One validated record of a one-sided kind from {@code p}; any other kind throws. */
    void onRecord(Peer p, ShmRecord r) {
        switch (r.kind()) {
            case ShmRecordDescriptor.WRITE -> rma.onWrite(p, r);
            case ShmRecordDescriptor.READ_REQ -> rma.onReadRequest(p, r);
            case ShmRecordDescriptor.READ_RESP -> rma.onReadResponse(p, r);
            case ShmRecordDescriptor.ATOMIC_REQ -> atomics.onRequest(p, r);
            case ShmRecordDescriptor.ATOMIC_RESP -> atomics.onResponse(p, r);
            case ShmRecordDescriptor.NOTIFY -> rma.onNotify(p, r);
            default -> throw new IllegalArgumentException("record kind " + r.kind()); // the reader fails its sender (EPROTO)
        }
    }
}
