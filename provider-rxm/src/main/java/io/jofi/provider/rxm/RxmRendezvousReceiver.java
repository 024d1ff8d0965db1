package io.jofi.provider.rxm;

import static io.jofi.provider.rxm.RxmWireDescriptor.HEADER_LENGTH;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.MemoryRegion;
import io.jofi.spi.util.PostedReceive;
import io.jofi.spi.util.ReceiveQueue;
import io.jofi.spi.util.UnexpectedMessage;
import java.nio.ByteBuffer;

/**
 * The receiving side of rxm's rendezvous: a request is matched against the receive queue
 * (or held as an unexpected message), then its data is moved — read from the sender's
 * registered buffers and answered with {@code rndv_rd_done}, or, by write, a registered buffer
 * offered with {@code rndv_wr_data} and the receive completed on the sender's
 * {@code rndv_wr_done}. What waits for MSG queue room or a transmit is tried again by the
 * progress pass. Called under the endpoint's lock.
 */
final class RxmRendezvousReceiver {
    private static final System.Logger LOG = System.getLogger(RxmRendezvousReceiver.class.getName());

    private final Owner owner;
    private final ReceiveQueue rq;
    private final RxmTransmitPool transmits;
    /** The settings' {@link RxmSettings#rendezvousByWrite()}: offer a buffer for the sender's writes, not read. */
    private final boolean byWrite;
    private final RxmPacketHeader ctrlHeader = new RxmPacketHeader();
    private RxmRendezvousRead freeReads;
    /** Rendezvous whose reads, offer or answer wait for room in the MSG queues. */
    private RxmRendezvousRead deferred;
    /**
     * Unexpected rendezvous moved only once a receive takes them: of FI_MATCH_COMPLETE senders,
     * and those kept as a descriptor beyond the unexpected limits ({@link #request}).
     */
    private RxmRendezvousRead awaitingMatch;
    /** What an unexpected rendezvous kept as a descriptor counts against the limits: its request packet. */
    static final long DESCRIPTOR_FOOTPRINT = HEADER_LENGTH + RxmWireDescriptor.RNDV_LENGTH;

    /** What the rendezvous receiver asks of its endpoint: the source of a message, and registrations. */
    interface Owner {
        /** The address {@code c}'s peer has in the bound AV, a completion's source ({@code FI_ADDR_NOTAVAIL}: none). */
        long sourceOf(RxmConnection c);

        /** Registers {@code target} in the MSG domain for a sender's rendezvous writes, under a fresh key. */
        MemoryRegion registerForWrite(ByteBuffer target) throws FabricException;

        /** Whether the MSG provider moves bytes only to and from native memory ({@link RxmPacketMemory#nativeMemory}). */
        boolean nativeMemory();
    }

    /**
     * @param rq           the receive queue requests are matched against
     * @param transmits    where the answers and offers take their transmit
     * @param byWrite      the settings' {@link RxmSettings#rendezvousByWrite()}
     */
    RxmRendezvousReceiver(Owner owner, ReceiveQueue rq, RxmTransmitPool transmits, boolean byWrite) {
        this.owner = owner;
        this.rq = rq;
        this.transmits = transmits;
        this.byWrite = byWrite;
    }

    /** A read of {@code rr} completed ({@code err} 0) or failed. */
    void readCompleted(RxmRendezvousRead rr, int err) {
        rr.readsLeft--;
        if (err != 0 && rr.error == 0) {
            rr.error = err;
        }
        readProgress(rr);
    }

    /** Tries again what waited for room; returns the work done. */
    int retry() {
        int n = 0;
        RxmRendezvousRead list = deferred;
        deferred = null;
        while (list != null) {
            RxmRendezvousRead rr = list;
            list = rr.next;
            rr.next = null;
            rr.deferred = false;
            n++;
            if (rr.answerPending) {
                rr.answerPending = false;
                answer(rr);
            } else {
                startTransfer(rr);
            }
        }
        return n;
    }


    /**
     * A rendezvous request arrived: match it, then move its data (read, or offer a buffer for
     * writes). Unexpected, its data is read into a copy at once when the copy fits the
     * unexpected limits; beyond them with {@code force} only its descriptor is kept (the
     * footprint {@link #DESCRIPTOR_FOOTPRINT}) and the data is read once a receive takes it, into
     * a copy of that receive's size — a peer's claimed size never becomes an allocation by
     * itself (with rxm's credits every packet is taken, so before this a peer could make the
     * receiver allocate up to 2 GiB per request).
     *
     * @param force taken even beyond the limits (rxm's credits: every packet is taken; or its
     *              connection is ending)
     * @return false when it found no receive and its size no room among the unexpected
     *         messages (its data would be read into a copy of that size): nothing taken, the
     *         caller holds the packet back until a receive is posted
     */
    boolean request(RxmConnection c, ByteBuffer b, RxmPacketHeader h, int len, boolean force) {
        if (len < HEADER_LENGTH + RxmWireDescriptor.RNDV_LENGTH || h.size < 0 || h.size > Integer.MAX_VALUE) {
            LOG.log(System.Logger.Level.WARNING, "rxm: rendezvous packet of " + len + " bytes dropped");
            return true;
        }
        int count = Math.min(RxmPacketHeader.rendezvousCount(b, HEADER_LENGTH), RxmWireDescriptor.IOV_LIMIT);
        if (!describesWhole(b, count, h.size)) {
            LOG.log(System.Logger.Level.WARNING, "rxm: rendezvous request from " + c.peer + " whose buffers do not"
                    + " hold its " + h.size + " bytes; dropped");
            return true;
        }
        RxmRendezvousRead rr = takeRead();
        rr.connection = c;
        rr.msgId = h.msgId;
        for (int i = 0; i < count; i++) {
            rr.remoteAddr[i] = RxmPacketHeader.rendezvousAddr(b, HEADER_LENGTH, i);
            rr.remoteLen[i] = RxmPacketHeader.rendezvousLen(b, HEADER_LENGTH, i);
            rr.remoteKey[i] = RxmPacketHeader.rendezvousKey(b, HEADER_LENGTH, i);
        }
        rr.remoteCount = count;
        long size = h.size;
        long src = owner.sourceOf(c);
        rr.header.set(h.tagged(), h.tag, h.hasData(), h.data, src, c.peerName, size);
        PostedReceive r = rq.match(rr.header);
        if (r == null && !force && !rq.admits(size)) {
            giveRead(rr);
            return false;
        }
        if (r != null) {
            rr.receive = r;
            rr.placed = Math.min(size, r.capacity());
            rr.direct = (count == 1 || byWrite) && reachable(r);
            if (!rr.direct) {
                rr.staging = staging((int) rr.placed);
            }
        } else if (!rq.admits(size)) {
            // beyond the limits (force): the data waits at the sender until a receive takes it
            UnexpectedMessage u = rq.newUnexpected(DESCRIPTOR_FOOTPRINT);
            u.set(h.tagged(), h.tag, h.hasData(), h.data, src, c.peerName, size)
                    .payload(RxmUnexpectedCopy.INSTANCE, null, -1).origin(c);
            rq.arriving(u);
            rr.unexpected = u;
            rr.placed = size; // until matched: then the taking receive's share (matched)
            rr.next = awaitingMatch;
            awaitingMatch = rr;
            return true;
        } else {
            ByteBuffer copy = staging((int) size);
            UnexpectedMessage u = rq.newUnexpected(size);
            u.set(h.tagged(), h.tag, h.hasData(), h.data, src, c.peerName, size)
                    .payload(RxmUnexpectedCopy.INSTANCE, copy, -1).origin(c);
            rq.arriving(u);
            rr.unexpected = u;
            rr.staging = copy;
            rr.placed = size;
        }
        rr.readCount = rr.placed == 0 ? 0 : rr.direct ? 1 : count;
        if (rr.unexpected != null && h.opData == RxmWireDescriptor.OP_DATA_MATCH_COMPLETE) {
            rr.next = awaitingMatch;
            awaitingMatch = rr;
            return true;
        }
        startTransfer(rr);
        return true;
    }

    /**
     * Whether a request's {@code count} sender buffers hold its {@code size} bytes: none of
     * negative length, and together at least the size (the reads are cut from them in order; a
     * negative length made an offset negative and the read's view threw in the progress pass).
     */
    private static boolean describesWhole(ByteBuffer b, int count, long size) {
        long total = 0;
        for (int i = 0; i < count; i++) {
            long len = RxmPacketHeader.rendezvousLen(b, HEADER_LENGTH, i);
            if (len < 0) {
                return false;
            }
            total += Math.min(len, Integer.MAX_VALUE); // no overflow: at most IOV_LIMIT of them
        }
        return total >= size;
    }

    /**
     * Where the bytes of a rendezvous wait that cannot go straight into the receive: a direct
     * buffer where the MSG provider's device reads and writes only native memory.
     */
    private ByteBuffer staging(int n) {
        return owner.nativeMemory() ? ByteBuffer.allocateDirect(n) : ByteBuffer.allocate(n);
    }

    /**
     * Whether the MSG provider can move bytes straight into {@code r}'s buffers: on native
     * memory only into one direct buffer (a read's local buffer is registered by the provider
     * on the fly, one per operation, as it comes without a desc).
     */
    private boolean reachable(PostedReceive r) {
        if (!owner.nativeMemory()) {
            return true;
        }
        if (r.segmentCount() != 1) {
            return false;
        }
        for (int i = 0; i < r.segmentCount(); i++) {
            if (!r.segment(i).isDirect()) {
                return false;
            }
        }
        return true;
    }

    /** Moves a rendezvous' data: reads it (by read), or offers the buffer to the sender (by write). */
    private void startTransfer(RxmRendezvousRead rr) {
        if (byWrite) {
            offerBuffer(rr);
        } else {
            issueReads(rr);
        }
    }

    // =================================================================== rendezvous by write, receiving side

    /** Rendezvous by write waiting for the sender's write-done. */
    private RxmRendezvousRead awaitingWrite;

    /** Registers where the data goes and tells the sender ({@code rndv_wr_data}); waits for its write-done. */
    private void offerBuffer(RxmRendezvousRead rr) {
        RxmConnection c = rr.connection;
        if (c.msgEndpoint == null || !c.isConnected()) {
            closeOffer(rr); // (registered before a full MSG queue deferred it)
            rr.error = rr.error != 0 ? rr.error : Errno.ECONNRESET; // (the end's, when it came first)
            rr.done = true;
            completeReceive(rr);
            giveRead(rr);
            return;
        }
        ByteBuffer target;
        if (rr.receive != null && rr.staging == null && rr.receive.segmentCount() == 1) {
            target = rr.receive.scatterViews(rr.placed)[0];
        } else {
            if (rr.staging == null) {
                rr.staging = staging((int) rr.placed);
            }
            target = rr.staging.duplicate();
            target.limit((int) rr.placed).position(0);
        }
        RxmTransmit t = transmits.takeForAnswer();
        if (t == null) {
            defer(rr);
            return;
        }
        try {
            if (rr.offered == null) {
                rr.offered = owner.registerForWrite(target);
            }
        } catch (FabricException e) {
            transmits.give(t);
            rr.error = e.errno();
            rr.done = true;
            completeReceive(rr);
            giveRead(rr);
            return;
        }
        t.kind = RxmTransmit.Kind.CONTROL;
        t.connection = c;
        RxmPacketHeader h = ctrlHeader.clear();
        h.type = RxmWireDescriptor.TYPE_RNDV_WRITE_DATA;
        h.connId = c.remoteIndex & 0xFFFF_FFFFL;
        h.msgId = rr.msgId;
        ByteBuffer p = t.packet;
        p.clear();
        h.write(p, 0);
        RxmPacketHeader.writeRendezvousIov(p, HEADER_LENGTH, 0, rr.offered.address(), rr.placed, rr.offered.key());
        RxmPacketHeader.writeRendezvousCount(p, HEADER_LENGTH, 1);
        p.limit(HEADER_LENGTH + RxmWireDescriptor.RNDV_LENGTH);
        t.postFlags = 0;
        int rc = RxmSendPath.postNow(t);
        if (rc == -Errno.EAGAIN) {
            transmits.give(t);
            defer(rr);
            return;
        }
        if (rc != 0) {
            transmits.give(t);
        }
        rr.next = awaitingWrite;
        awaitingWrite = rr;
    }

    /** The sender wrote it all ({@code rndv_wr_done}): the receive completes. */
    void writeDone(RxmConnection c, long msgId) {
        RxmRendezvousRead prev = null;
        for (RxmRendezvousRead rr = awaitingWrite; rr != null; prev = rr, rr = rr.next) {
            if (rr.connection != c || rr.msgId != msgId) {
                continue;
            }
            if (prev == null) {
                awaitingWrite = rr.next;
            } else {
                prev.next = rr.next;
            }
            rr.next = null;
            closeOffer(rr);
            rr.done = true;
            completeReceive(rr);
            giveRead(rr);
            return;
        }
        LOG.log(System.Logger.Level.WARNING, "rxm: a write-done for unknown message " + msgId + " from " + c.peer);
    }

    private static void closeOffer(RxmRendezvousRead rr) {
        if (rr.offered != null) {
            try {
                rr.offered.close();
            } catch (FabricException e) {
                LOG.log(System.Logger.Level.WARNING, "rxm: closing an offered registration failed: " + e.getMessage());
            }
            rr.offered = null;
        }
    }

    /**
     * The endpoint closes: the registrations offered to senders go (their receives were
     * discarded with the others) — before, they kept the MSG domain from closing.
     */
    void closeOffers() {
        for (RxmRendezvousRead rr = awaitingWrite; rr != null; rr = rr.next) {
            closeOffer(rr);
        }
        for (RxmRendezvousRead rr = deferred; rr != null; rr = rr.next) {
            closeOffer(rr);
        }
    }

    /**
     * After a post: the unexpected rendezvous moved only once matched (FI_MATCH_COMPLETE, or
     * kept as a descriptor beyond the limits) that a receive took (or a discard dropped) are
     * read now.
     */
    void matched() {
        RxmRendezvousRead prev = null;
        for (RxmRendezvousRead rr = awaitingMatch; rr != null; ) {
            RxmRendezvousRead next = rr.next;
            UnexpectedMessage u = rr.unexpected;
            if (u.hasWaitingReceive() || u.isDropped()) {
                if (prev == null) {
                    awaitingMatch = next;
                } else {
                    prev.next = next;
                }
                rr.next = null;
                if (rr.staging == null) {
                    copyFor(rr, u);
                }
                startTransfer(rr);
            } else {
                prev = rr;
            }
            rr = next;
        }
    }

    /**
     * A rendezvous kept as a descriptor was taken: its copy is what the receive can hold (none
     * when it was dropped: nothing is read, the sender is answered all the same).
     */
    private void copyFor(RxmRendezvousRead rr, UnexpectedMessage u) {
        rr.placed = u.isDropped() ? 0 : Math.min(rr.placed, u.waitingCapacity());
        rr.staging = staging((int) rr.placed);
        u.payload(RxmUnexpectedCopy.INSTANCE, rr.staging, -1);
        rr.readCount = rr.placed == 0 ? 0 : rr.remoteCount;
    }

    /**
     * {@code c} ended: its FI_MATCH_COMPLETE rendezvous that no receive took yet can never be
     * read (the sender's registrations went with the connection), so they go from the
     * unexpected queue — a later receive must not take a message whose bytes cannot come.
     */
    void connectionEnded(RxmConnection c, int err) {
        failOffers(c, err);
        // what waits for room or for the end (a read or offer found the connection gone) ends
        // with the end's errno when the next pass tries it again
        for (RxmRendezvousRead rr = deferred; rr != null; rr = rr.next) {
            if (rr.connection == c && rr.error == 0) {
                rr.error = err;
            }
        }
        RxmRendezvousRead prev = null;
        for (RxmRendezvousRead rr = awaitingMatch; rr != null; ) {
            RxmRendezvousRead next = rr.next;
            if (rr.connection == c) {
                if (prev == null) {
                    awaitingMatch = next;
                } else {
                    prev.next = next;
                }
                rr.next = null;
                rq.abandon(rr.unexpected, err);
                giveRead(rr);
            } else {
                prev = rr;
            }
            rr = next;
        }
    }

    /**
     * {@code c} ended: the buffers offered to its sender will not be written, so their
     * receives fail with the end's errno and the registrations go. Before, such a receive
     * stayed posted for ever (lost) and its registration kept the MSG domain from closing.
     */
    private void failOffers(RxmConnection c, int err) {
        RxmRendezvousRead prev = null;
        for (RxmRendezvousRead rr = awaitingWrite; rr != null; ) {
            RxmRendezvousRead next = rr.next;
            if (rr.connection == c) {
                if (prev == null) {
                    awaitingWrite = next;
                } else {
                    prev.next = next;
                }
                rr.next = null;
                closeOffer(rr);
                rr.error = err;
                rr.done = true;
                completeReceive(rr);
                giveRead(rr);
            } else {
                prev = rr;
            }
            rr = next;
        }
    }

    /** Posts the planned reads not posted yet; defers the rest when the MSG queue is full. */
    private void issueReads(RxmRendezvousRead rr) {
        while (rr.nextRead < rr.readCount && rr.error == 0) {
            int rc = postRead(rr, rr.nextRead);
            if (rc == -Errno.EAGAIN) {
                defer(rr);
                return;
            }
            if (rc != 0) {
                rr.error = -rc;
                break;
            }
            rr.nextRead++;
            rr.readsLeft++;
        }
        if (rr.error != 0) {
            rr.readCount = rr.nextRead; // nothing more will be posted
        }
        readProgress(rr);
    }

    private int postRead(RxmRendezvousRead rr, int i) {
        RxmConnection c = rr.connection;
        if (c.msgEndpoint == null || !c.isConnected()) {
            return -Errno.ECONNRESET;
        }
        io.jofi.RmaMsg rma = rr.rma;
        if (rr.direct) {
            ByteBuffer[] views = rr.receive.scatterViews(rr.placed);
            int k = 0;
            for (int s = 0; s < rr.receive.segmentCount(); s++) {
                if (views[s].hasRemaining()) {
                    rma.iov(k++, views[s], null);
                }
            }
            rma.iovCount(k);
            rma.rmaIovCount(1).rmaIov(0, rr.remoteAddr[0], rr.placed, rr.remoteKey[0]);
        } else {
            long offset = 0;
            for (int j = 0; j < i; j++) { // each at most what is left: lengths near 2^63 made the sum wrap
                offset += Math.min(rr.remoteLen[j], rr.placed - offset);
            }
            long want = Math.min(rr.remoteLen[i], rr.placed - offset);
            if (want <= 0) {
                rr.readsLeft--; // counted as posted and done at once: nothing to read
                return 0;
            }
            ByteBuffer view = rr.staging.duplicate();
            view.limit((int) (offset + want)).position((int) offset);
            rma.iovCount(1).iov(0, view, null);
            rma.rmaIovCount(1).rmaIov(0, rr.remoteAddr[i], want, rr.remoteKey[i]);
        }
        rma.context(rr).addr(0);
        // a connection found gone waits for its end (-EAGAIN, deferred), which gives its errno
        return RxmConnection.refusedWhileEnding(c.msgEndpoint.readMsg(rma, 0));
    }

    /** After a read completed (or none is outstanding): when all are in, complete and answer. */
    private void readProgress(RxmRendezvousRead rr) {
        if (rr.readsLeft > 0 || rr.nextRead < rr.readCount) {
            return;
        }
        if (!rr.done) {
            rr.done = true;
            completeReceive(rr);
        }
        answer(rr);
    }

    private void completeReceive(RxmRendezvousRead rr) {
        if (rr.receive != null) {
            PostedReceive r = rr.receive;
            if (rr.error != 0) {
                rq.failMessage(r, rr.header, rr.error);
                return;
            }
            long placed = rr.placed;
            if (rr.staging != null) {
                placed = r.place(0, rr.staging, 0, (int) rr.placed);
            }
            rq.complete(r, rr.header, placed);
        } else if (rr.error != 0) {
            rq.abandon(rr.unexpected, rr.error);
        } else {
            rq.arrived(rr.unexpected);
        }
        rr.receive = null;
        rr.unexpected = null;
    }

    /** Tells the sender its buffers were read ({@code rndv_rd_done}); waits for a transmit or MSG room. */
    private void answer(RxmRendezvousRead rr) {
        RxmConnection c = rr.connection;
        if (c.msgEndpoint == null || !c.isConnected()) {
            giveRead(rr); // the sender's side of the connection is gone; nothing to answer
            return;
        }
        RxmTransmit t = transmits.takeForAnswer();
        if (t == null) {
            rr.answerPending = true;
            defer(rr);
            return;
        }
        t.kind = RxmTransmit.Kind.CONTROL;
        t.connection = c;
        RxmPacketHeader h = ctrlHeader.clear();
        h.type = RxmWireDescriptor.TYPE_RNDV_READ_DONE;
        h.connId = c.remoteIndex & 0xFFFF_FFFFL;
        h.msgId = rr.msgId;
        t.headerOnly(h);
        int rc = RxmSendPath.postNow(t);
        if (rc == -Errno.EAGAIN) {
            transmits.give(t);
            rr.answerPending = true;
            defer(rr);
            return;
        }
        if (rc != 0) {
            transmits.give(t);
            LOG.log(System.Logger.Level.WARNING, "rxm: the rendezvous answer to " + c.peer + " failed: "
                    + Errno.strerror(-rc));
        }
        giveRead(rr);
    }

    private void defer(RxmRendezvousRead rr) {
        if (!rr.deferred) {
            rr.deferred = true;
            rr.next = deferred;
            deferred = rr;
        }
    }

    private RxmRendezvousRead takeRead() {
        RxmRendezvousRead rr = freeReads;
        if (rr == null) {
            return new RxmRendezvousRead();
        }
        freeReads = rr.next;
        rr.next = null;
        return rr;
    }

    private void giveRead(RxmRendezvousRead rr) {
        rr.reset();
        rr.next = freeReads;
        freeReads = rr;
    }

}
