package io.jofi.provider.rxm;

import static io.jofi.provider.rxm.RxmWireDescriptor.HEADER_LENGTH;

import io.jofi.Errno;
import io.jofi.Fi;
import java.nio.ByteBuffer;

/**
 * The sending side of rendezvous by write ({@link RxmSettings#rendezvousByWrite}): the
 * receiver offers its registered buffers ({@code rndv_wr_data}), this side writes the message
 * into them by RMA writes on the MSG connection and, once every write completed, sends the
 * write-done ({@code rndv_wr_done}) that completes the receive there.
 *
 * <p>The offer is kept on the transmit ({@link RxmTransmit#offerAddr} and the rest), so writes
 * that a full MSG queue refuses ({@code -EAGAIN}) are posted by a later pass ({@link #retry}),
 * and the write-done goes out only after the last byte was written. Before, a refused write was
 * logged and skipped, and the write-done told the receiver that a message was whole of which
 * part had never been written.
 *
 * <p>Called under the endpoint's lock; allocates nothing.
 */
final class RxmRendezvousWriter {
    private static final System.Logger LOG = System.getLogger(RxmRendezvousWriter.class.getName());

    private final RxmSendQueue packets;
    private final RxmTransmitPool transmits;
    private final RxmPacketHeader header = new RxmPacketHeader();
    /** Transmits whose offer has writes not posted yet (a full MSG queue), oldest first. */
    private RxmTransmit waitingHead;
    private RxmTransmit waitingTail;

    RxmRendezvousWriter(RxmSendQueue packets, RxmTransmitPool transmits) {
        this.packets = packets;
        this.transmits = transmits;
    }

    /** The receiver offered its buffers ({@code rndv_wr_data}): the message is written into them. */
    void offered(RxmConnection c, ByteBuffer b, RxmPacketHeader h, int len) {
        RxmTransmit t = transmits.inFlight(h.msgId);
        if (t == null || t.kind != RxmTransmit.Kind.RENDEZVOUS || t.connection != c || t.peerDone
                || len < HEADER_LENGTH + RxmWireDescriptor.RNDV_LENGTH) {
            LOG.log(System.Logger.Level.WARNING, "rxm: a write offer for unknown message " + h.msgId + " dropped");
            return;
        }
        int count = Math.min(RxmPacketHeader.rendezvousCount(b, HEADER_LENGTH), RxmWireDescriptor.IOV_LIMIT);
        for (int j = 0; j < count; j++) {
            t.offerAddr[j] = RxmPacketHeader.rendezvousAddr(b, HEADER_LENGTH, j);
            t.offerLen[j] = Math.max(0, RxmPacketHeader.rendezvousLen(b, HEADER_LENGTH, j));
            t.offerKey[j] = RxmPacketHeader.rendezvousKey(b, HEADER_LENGTH, j);
        }
        t.offerCount = count;
        t.offerPosted = 0;
        t.peerDone = true;
        write(t);
    }

    /**
     * A completion of a rendezvous by write: the request's send, one of the writes, or the
     * write-done's send (which ends the operation). Once every write of the offer was posted
     * and completed, the write-done goes out.
     */
    void completed(RxmTransmit t, long flags) {
        if ((flags & Fi.FI_WRITE) != 0) {
            t.outstanding--;
        } else if (!t.sent) {
            t.sent = true;
        } else {
            packets.finishSend(t, 0); // the write-done was sent
            return;
        }
        sendDoneIfWritten(t);
    }

    /**
     * A MSG error completion of a rendezvous by write. Its MSG operations complete in the order
     * they were posted (one connection), so it is the request's send while that has not
     * completed, else one of the writes while some are in flight, else the write-done's send.
     * The operation fails, but only once the last of its writes came back: given back at the
     * first error, the transmit could be taken by the application's next send (to any peer),
     * and the next write's error (a flush) would fail that send. (tcp and rxe report the
     * connection's end first, whose drain finds the transmit still taken; an MSG provider may
     * report the error first.)
     */
    void failed(RxmTransmit t, int err) {
        if (!t.sent) {
            t.sent = true;
        } else if (t.outstanding > 0) {
            t.outstanding--;
        } else if (t.doneSent) {
            packets.finishSend(t, err);
            return;
        }
        if (t.writeError == 0) {
            t.writeError = err;
        }
        if (t.writing) {
            unlink(t, null);
        }
        t.offerPosted = Long.MAX_VALUE; // no more writes: the connection is failing
        t.peerDone = true; // an offer that comes now is dropped
        sendDoneIfWritten(t);
    }

    /** Posts the writes that waited for room in the MSG queue; the work done. */
    int retry() {
        int n = 0;
        while (waitingHead != null) {
            RxmTransmit t = waitingHead;
            if (!t.connection.isConnected()) {
                return n; // connectionEnded takes it off
            }
            waitingHead = t.nextWriting;
            t.nextWriting = null;
            if (waitingHead == null) {
                waitingTail = null;
            }
            t.writing = false;
            write(t);
            if (t.writing) {
                return n; // the queue is full again
            }
            n++;
        }
        return n;
    }

    /** {@code c} ended: its transmits leave the waiting list (the caller fails them). */
    void connectionEnded(RxmConnection c) {
        unlink(null, c);
    }

    /** Takes {@code only} (or, when null, every transmit of {@code c}) off the waiting list. */
    private void unlink(RxmTransmit only, RxmConnection c) {
        RxmTransmit prev = null;
        for (RxmTransmit t = waitingHead; t != null; ) {
            RxmTransmit next = t.nextWriting;
            if (only == null ? t.connection == c : t == only) {
                if (prev == null) {
                    waitingHead = next;
                } else {
                    prev.nextWriting = next;
                }
                if (waitingTail == t) {
                    waitingTail = prev;
                }
                t.nextWriting = null;
                t.writing = false;
            } else {
                prev = t;
            }
            t = next;
        }
    }

    /**
     * Posts the offer's writes from {@link RxmTransmit#offerPosted} on: each cut where a sender
     * buffer or an offered one ends (the same cuts every time, so a retry starts at one). A full
     * MSG queue leaves the rest for {@link #retry}; another refusal fails the operation once
     * its posted writes completed (no write-done: the receiver learns of it from the end of
     * the connection, which such a refusal means).
     */
    private void write(RxmTransmit t) {
        long at = 0;
        int li = 0;
        int lo = 0;
        for (int j = 0; j < t.offerCount && li < t.regionCount; j++) {
            long raddr = t.offerAddr[j];
            long rem = t.offerLen[j];
            while (rem > 0 && li < t.regionCount) {
                ByteBuffer lb = t.locals[li];
                int k = (int) Math.min(rem, lb.remaining() - lo);
                if (at >= t.offerPosted) {
                    int rc = post(t, li, lo, k, raddr, t.offerKey[j]);
                    if (rc == -Errno.EAGAIN) {
                        waitForRoom(t);
                        return;
                    }
                    if (rc != 0) {
                        LOG.log(System.Logger.Level.WARNING, "rxm: a rendezvous write to " + t.connection.peer
                                + " failed: " + Errno.strerror(-rc));
                        t.writeError = -rc;
                        break;
                    }
                    t.outstanding++;
                    t.offerPosted = at + k;
                }
                at += k;
                raddr += k;
                rem -= k;
                lo += k;
                if (lo == lb.remaining()) {
                    li++;
                    lo = 0;
                }
            }
            if (t.writeError != 0) {
                break;
            }
        }
        t.offerPosted = Long.MAX_VALUE; // all posted (or none will be any more)
        sendDoneIfWritten(t);
    }

    /** One write: {@code k} bytes at {@code lo} of the sender's buffer {@code li} to {@code raddr}. */
    private static int post(RxmTransmit t, int li, int lo, int k, long raddr, long key) {
        ByteBuffer view = t.writeView(li, lo, k);
        io.jofi.RmaMsg rma = t.rma;
        rma.iovCount(1).iov(0, view, t.regions[li]); // registered for the rendezvous
        rma.rmaIovCount(1).rmaIov(0, raddr, k, key);
        rma.context(t).data(0).addr(0);
        return t.connection.msgEndpoint.writeMsg(rma, 0);
    }

    private void waitForRoom(RxmTransmit t) {
        t.writing = true;
        if (waitingTail == null) {
            waitingHead = t;
        } else {
            waitingTail.nextWriting = t;
        }
        waitingTail = t;
    }

    /** Every write posted and completed, the request's send too: the write-done goes out (or the failure). */
    private void sendDoneIfWritten(RxmTransmit t) {
        if (!t.peerDone || t.doneSent || t.outstanding != 0 || !t.sent || t.offerPosted != Long.MAX_VALUE) {
            return;
        }
        if (t.writeError != 0) {
            packets.finishSend(t, t.writeError);
            return;
        }
        RxmConnection c = t.connection;
        RxmPacketHeader h = header.clear();
        h.type = RxmWireDescriptor.TYPE_RNDV_WRITE_DONE;
        h.connId = c.remoteIndex & 0xFFFF_FFFFL;
        h.msgId = t.index;
        t.headerOnly(h);
        t.doneSent = true;
        int rc = RxmSendPath.postNow(t);
        if (rc == -Errno.EAGAIN) {
            packets.queuePending(c, t); // no room, no credit, or the end to come: posted in order by the next pass
        } else if (rc != 0) {
            packets.finishSend(t, -rc);
        }
    }
}
