package io.jofi.provider.shm;

import io.jofi.Errno;
import io.jofi.provider.shm.cma.CrossMemoryAttach;
import io.jofi.spi.util.PostedReceive;
import io.jofi.spi.util.ReceiveQueue;
import io.jofi.spi.util.UnexpectedMessage;
import io.jofi.spi.util.UnexpectedPayload;
import java.util.Arrays;

/**
 * Receives the messages whose bytes stay in the sender (cross-memory attach): it answers a
 * peer's CMA probe, validates a CMA record, reads the sender's buffers with
 * {@code process_vm_readv} straight into the matching receive — or keeps the record's
 * {@link Descriptor} as an unexpected message's payload until a receive takes it — and
 * acknowledges each message with the read's status, so that the sender completes and may
 * reuse its buffers.
 *
 * <p>A malformed record fails its sender ({@code EPROTO}); a read that fails (a bad address,
 * the process gone) is that message's error on both sides. Runs under the endpoint's lock.
 */
final class ShmCmaReceiver implements UnexpectedPayload {
    private final ShmPeers peers;
    /** Where the ACKs go (the transmitter). */
    private final ShmAnswers answers;
    private final ShmReceiver receiver;
    private final ShmPeerCounters counters;
    /** The binding (null when CMA is off here: cmaThreshold 0 or CrossMemoryAttach unavailable). */
    private final CrossMemoryAttach cma;
    /** The iovecs of the CMA record being handled (validated copies of shared memory). */
    private final long[] addrs = new long[ShmProvider.IOV_LIMIT];
    private final long[] lens = new long[ShmProvider.IOV_LIMIT];
    /** Where an unexpected CMA message's bytes are: the sender's process and buffers, and its token. */
    static final class Descriptor {
        final int pid;
        final long[] addrs;
        final long[] lens;
        final int count;
        final long token;

        Descriptor(int pid, long[] addrs, long[] lens, int count, long token) {
            this.pid = pid;
            this.addrs = Arrays.copyOf(addrs, count);
            this.lens = Arrays.copyOf(lens, count);
            this.count = count;
            this.token = token;
        }
    }

    ShmCmaReceiver(ShmPeers peers, ShmAnswers answers, ShmReceiver receiver, ShmPeerCounters counters,
                   CrossMemoryAttach cma) {
        this.peers = peers;
        this.answers = answers;
        this.receiver = receiver;
        this.counters = counters;
        this.cma = cma;
    }

    /** A peer's CMA probe: read its word from its process and answer 0 or the errno (ACK). */
    void onProbe(Peer p, ShmRecord r) {
        int status = cma == null ? Errno.ENOSYS : cma.probe((int) p.pid, r.probeAddress(), r.probeValue());
        answers.sendAnswer(p, ShmRecordDescriptor.ACK, r.token(), status, 0, 0);
    }

    /**
     * A CMA message: every word from shared memory is checked (one whole record, 1..4 iovecs
     * whose lengths add up to the total); then it is read into the matching receive at once,
     * or kept as a descriptor until a receive takes it. A malformed record fails its sender;
     * a read that fails (bad address, process gone) is that message's error.
     */
    void onMessage(Peer p, ShmRecord r) {
        int count = r.status();
        long total = r.totalLength();
        int whole = ShmRecordDescriptor.FIRST | ShmRecordDescriptor.LAST;
        if ((r.kindFlags() & whole) != whole || p.inbound.inProgress() || count < 1 || count > ShmProvider.IOV_LIMIT
                || r.payloadLength() != count * ShmRecordDescriptor.CMA_IOV || total < 0
                || total > ShmProvider.MAX_MSG_SIZE) {
            peers.failPeer(p, Errno.EPROTO);
            return;
        }
        long sum = 0;
        for (int i = 0; i < count; i++) {
            long a = r.cmaAddress(i);
            long l = r.cmaLength(i);
            if (l < 0 || l > ShmProvider.MAX_MSG_SIZE) {
                peers.failPeer(p, Errno.EPROTO);
                return;
            }
            addrs[i] = a;
            lens[i] = l;
            sum += l;
        }
        if (sum != total) {
            peers.failPeer(p, Errno.EPROTO);
            return;
        }
        long token = r.token();
        if (cma == null) {
            // we never offered CMA (no probe succeeded): refuse the message, the sender completes with the error
            answers.sendAnswer(p, ShmRecordDescriptor.ACK, token, Errno.ENOSYS, 0, 0);
            return;
        }
        ShmReceiver rx = receiver;
        ReceiveQueue rq = rx.queue();
        ShmInboundMessage m = rx.start(p.inbound, p, r);
        PostedReceive into = rq.match(m);
        if (into != null) {
            long placed = read(into, p, (int) p.pid, addrs, lens, count, total, token);
            if (placed < 0) {
                rq.failMessage(into, m, (int) -placed);
            } else {
                rq.complete(into, m, placed); // ETRUNC when it did not all fit
            }
            return;
        }
        if (!rx.admitUnexpected(ShmReceiver.ENTRY_OVERHEAD)) {
            return; // stays in the ring until receives take what is buffered
        }
        UnexpectedMessage u = rq.newUnexpected(ShmReceiver.ENTRY_OVERHEAD)
                .set(m.tagged(), m.tag(), m.hasData(), m.data(), m.src(), m.sourceAddress(), total)
                .payload(this, new Descriptor((int) p.pid, addrs, lens, count, token), 0)
                .origin(p);
        rq.arrived(u); // whole at once: it waits queued for a receive
    }

    /**
     * A receive takes a buffered CMA message: read from the sender now, or {@code -ECONNRESET}
     * when the sender is gone (its memory with it, and its pid may be another process's now).
     */
    @Override
    public long copyTo(UnexpectedMessage message, PostedReceive into) {
        receiver.budgetFreed();
        Peer s = (Peer) message.origin();
        if (s.failed != 0 || (s.link != null && s.link.peerGone(s.pid == ShmOwnRing.PID))) {
            return -Errno.ECONNRESET;
        }
        Descriptor d = (Descriptor) message.handle();
        return read(into, s, d.pid, d.addrs, d.lens, d.count, message.length(), d.token);
    }

    /** A buffered CMA message discarded (FI_DISCARD, its sender failed): acknowledged, nothing read (the sender completes). */
    @Override
    public void discard(UnexpectedMessage message) {
        receiver.budgetFreed();
        answers.sendAnswer((Peer) message.origin(), ShmRecordDescriptor.ACK, ((Descriptor) message.handle()).token,
                0, 0, 0);
    }

    /**
     * Reads a CMA message into {@code into} (what does not fit is left: truncation, R12) and
     * ACKs the sender with the read's status.
     *
     * @return the bytes placed, or {@code -errno} of a failed read
     */
    private long read(PostedReceive into, Peer sender, int rpid, long[] addrs, long[] lens, int count, long total,
                      long token) {
        long want = Math.min(total, into.capacity());
        long from = 0;
        int status = 0;
        for (int i = 0; i < into.segmentCount() && from < want; i++) {
            int take = (int) Math.min(into.segmentLength(i), want - from);
            status = cma.read(rpid, addrs, lens, count, from, into.segment(i), into.segmentStart(i), take);
            if (status != 0) {
                break;
            }
            from += take;
        }
        answers.sendAnswer(sender, ShmRecordDescriptor.ACK, token, status, 0, 0);
        if (status != 0) {
            return -status;
        }
        counters.cmaRead();
        return want;
    }
}
