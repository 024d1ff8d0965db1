package io.jofi.provider.shm;

import io.jofi.Errno;
import io.jofi.provider.shm.cma.CrossMemoryAttach;

/**
 * Receives the messages whose bytes stay in the sender (cross-memory attach): it answers a
 * peer's CMA probe, validates a CMA record, reads the sender's buffers with
 * {@code process_vm_readv} straight into the matching receive (or keeps the record's
 * descriptor as an unexpected message until a receive takes it), and acknowledges each message
 * with the read's status, so that the sender completes and may reuse its buffers.
 *
 * <p>A malformed record fails its sender ({@code EPROTO}); a read that fails (a bad address,
 * the process gone) is that message's error on both sides. Runs under the endpoint's lock.
 */
final class ShmCmaReceiver {
    private final ShmEndpoint ep;
    private final ShmReceiveCompletions completions;
    /** The binding (null when CMA is off here: cmaThreshold 0 or CrossMemoryAttach unavailable). */
    private final CrossMemoryAttach cma;
    /** The iovecs of the CMA record being handled (validated copies of shared memory). */
    private final long[] addrs = new long[ShmOutboundOp.MAX_PARTS];
    private final long[] lens = new long[ShmOutboundOp.MAX_PARTS];
    /** CMA messages read into receives: tests and logs. */
    long cmaRead;

    ShmCmaReceiver(ShmEndpoint ep, ShmReceiveCompletions completions, CrossMemoryAttach cma) {
        this.ep = ep;
        this.completions = completions;
        this.cma = cma;
    }

    /** A peer's CMA probe: read its word from its process and answer 0 or the errno (ACK). */
    void onProbe(Peer p, ShmRecord r) {
        int status = cma == null ? Errno.ENOSYS : cma.probe((int) p.pid, r.probeAddress(), r.probeValue());
        ep.transmitter.sendAnswer(p, ShmRecordDescriptor.ACK, r.token(), status, 0, 0);
    }

    /**
     * A CMA message: every word from shared memory is checked (one whole record, 1..4 iovecs
     * whose lengths add up to the total); then it is read into the matching receive at once,
     * or kept as a descriptor until a receive takes it. A malformed record fails its sender;
     * a read that fails (bad address, process gone) is that message's error.
     */
    void onMessage(Peer p, ShmRecord r) {
        int kf = r.kindFlags();
        long token = r.token();
        int count = r.status();
        long total = r.totalLength();
        int whole = ShmRecordDescriptor.FIRST | ShmRecordDescriptor.LAST;
        if ((kf & whole) != whole || p.inbound.inProgress() || count < 1
                || count > ShmOutboundOp.MAX_PARTS || r.payloadLength() != count * ShmRecordDescriptor.CMA_IOV
                || total < 0 || total > ShmProvider.MAX_MSG_SIZE) {
            ep.peers.failPeer(p, Errno.EPROTO);
            return;
        }
        long sum = 0;
        for (int i = 0; i < count; i++) {
            long a = r.cmaAddress(i);
            long l = r.cmaLength(i);
            if (l < 0 || l > ShmProvider.MAX_MSG_SIZE) {
                ep.peers.failPeer(p, Errno.EPROTO);
                return;
            }
            addrs[i] = a;
            lens[i] = l;
            sum += l;
        }
        if (sum != total) {
            ep.peers.failPeer(p, Errno.EPROTO);
            return;
        }
        if (cma == null) {
            // we never offered CMA (no probe succeeded): refuse the message, the sender completes with the error
            ep.transmitter.sendAnswer(p, ShmRecordDescriptor.ACK, token, Errno.ENOSYS, 0, 0);
            return;
        }
        boolean tagged = (kf & ShmRecordDescriptor.TAGGED) != 0;
        boolean hasData = (kf & ShmRecordDescriptor.HAS_DATA) != 0;
        long tag = r.tag();
        long data = r.messageData();
        ShmReceiver rx = ep.receiver;
        ShmPostedReceive op = rx.match(tagged, tag, p);
        if (op != null) {
            place(op, p, (int) p.pid, addrs, lens, count, total, token, tagged, tag, hasData, data);
        } else {
            if (!rx.admitUnexpected(ShmUnexpectedMessage.CMA_FOOTPRINT)) {
                return; // stays in the ring until receives take what is buffered
            }
            rx.buffer(new ShmUnexpectedMessage(p, tagged, tag, hasData, data, total, token, kf, (int) p.pid, addrs, lens,
                    count));
        }
    }

    /**
     * A receive takes a buffered CMA message (its descriptor): read from the sender now, or
     * {@code ECONNRESET} when the sender is gone (its memory with it).
     *
     * @return true when the receive is done (a multi-receive: released)
     */
    boolean deliver(ShmPostedReceive op, ShmUnexpectedMessage u) {
        Peer s = u.sender;
        if (s.failed != 0 || (s.link != null && s.link.peerGone(s.pid == ep.pid))) {
            // the sender is gone: its memory with it (and its pid may be another process's now)
            return completions.failMessage(op, s, u.tagged, u.tag, u.hasData, u.data, Errno.ECONNRESET);
        }
        return place(op, s, u.cmaPid, u.cmaAddrs, u.cmaLens, u.cmaCount, u.length(), u.token, u.tagged, u.tag,
                u.hasData, u.data);
    }

    /**
     * Reads a CMA message into {@code op} (from its multi-receive offset; what does not fit is
     * truncated, R12), ACKs the sender with the read's status, and completes the receive.
     *
     * @return true when the receive is done (as {@link ShmReceiveCompletions#finish})
     */
    private boolean place(ShmPostedReceive op, Peer sender, int rpid, long[] addrs, long[] lens, int count, long total,
                          long token, boolean tagged, long tag, boolean hasData, long data) {
        long want = Math.min(total, Math.max(0, op.room()));
        long skip = op.multiOffset;
        long from = 0;
        int status = 0;
        for (int i = 0; i < op.partCount && from < want; i++) {
            int len = op.lengths[i];
            if (skip >= len) {
                skip -= len;
                continue;
            }
            int take = (int) Math.min(len - skip, want - from);
            status = cma.read(rpid, addrs, lens, count, from, op.parts[i], op.starts[i] + (int) skip, take);
            if (status != 0) {
                break;
            }
            from += take;
            skip = 0;
        }
        ep.transmitter.sendAnswer(sender, ShmRecordDescriptor.ACK, token, status, 0, 0);
        if (status != 0) {
            return completions.failMessage(op, sender, tagged, tag, hasData, data, status);
        }
        cmaRead++;
        return completions.finish(op, sender, tagged, tag, hasData, data, want, total - want);
    }
}
