package io.jofi.provider.shm;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.spi.util.UtilCompletionQueue;
import java.nio.ByteBuffer;

/**
 * Writes the completions of receives (R10, R12, R13): success, truncation ({@code ETRUNC}
 * with {@code olen}), an unknown sender under {@code FI_SOURCE_ERR} ({@code EADDRNOTAVAIL}
 * with its raw address), a failed or cancelled receive; with {@code FI_SOURCE} the sender's
 * {@code fi_addr}; for a multi-receive buffer the rules of R6 (an entry of its own per message
 * when the CQ has room, else the buffer is released early, {@code FI_MULTI_RECV} on the last).
 *
 * <p>Runs under the endpoint's lock. The completion room of a receive was reserved when it was
 * posted; a completion not written gives it back.
 */
final class ShmReceiveCompletions {
    private final ShmEndpoint ep;
    /** FI_SOURCE: completions carry the sender's fi_addr. */
    private final boolean source;
    /** FI_SOURCE_ERR: a sender not in the AV completes as an error carrying its address. */
    private final boolean sourceErr;

    ShmReceiveCompletions(ShmEndpoint ep, boolean source, boolean sourceErr) {
        this.ep = ep;
        this.source = source;
        this.sourceErr = sourceErr;
    }

    /** The {@code fi_addr} a completion reports for {@code sender}: its AV entry with {@code FI_SOURCE}. */
    long sourceOf(Peer sender) {
        return source ? sender.fiAddrIn(ep.av) : Fi.FI_ADDR_NOTAVAIL;
    }

    /**
     * Completes a receive (or one message of a multi-receive) that took {@code len} bytes and
     * dropped {@code dropped} (truncation).
     *
     * @return true when the receive is given back (a multi-receive: released)
     */
    boolean finish(ShmPostedReceive op, Peer sender, boolean tagged, long tag, boolean hasData, long data, long len,
                   long dropped) {
        long flags = Fi.FI_RECV | (tagged ? Fi.FI_TAGGED : Fi.FI_MSG) | (hasData ? Fi.FI_REMOTE_CQ_DATA : 0);
        long src = sourceOf(sender);
        ByteBuffer buf = op.buf;
        int bufOffset = op.bufOffset + op.multiOffset;
        UtilCompletionQueue cq = ep.rxCq;
        ShmReceiver rx = ep.receiver;
        boolean release = false;
        boolean reservedUsed = true;
        if (op.multi) {
            op.multiOffset += (int) len;
            boolean entry = op.complete || dropped > 0 || (sourceErr && source && src == Fi.FI_ADDR_NOTAVAIL);
            // R6: a message landing in the buffer writes its entry into room of its own; when
            // the CQ has none, this message releases the buffer early (its entry takes the room
            // the buffer reserved at posting) and further messages wait for the next receive
            release = op.room() < rx.minMultiRecv || (entry && cq.reserve() != 0);
            if (release) {
                flags |= Fi.FI_MULTI_RECV;
                rx.unpost(op);
            }
            reservedUsed = release || entry;
        }
        if (dropped > 0) {
            write(cq, reservedUsed, true, op.context, flags, len, buf, bufOffset, data, tag, dropped, Errno.ETRUNC, null,
                    src);
            if (ep.recvCntr != null) {
                ep.recvCntr.incrementError();
            }
        } else if (sourceErr && source && src == Fi.FI_ADDR_NOTAVAIL) {
            byte[] raw = sender.address.clone();
            write(cq, reservedUsed, true, op.context, flags, len, buf, bufOffset, data, tag, 0, Errno.EADDRNOTAVAIL, raw,
                    src);
            ShmEndpoint.count(ep.recvCntr);
        } else {
            if (op.complete || (op.multi && release)) {
                write(cq, reservedUsed, false, op.context, flags, len, buf, bufOffset, data, tag, 0, 0, null, src);
            } else if (reservedUsed) {
                cq.unreserve();
            }
            ShmEndpoint.count(ep.recvCntr);
        }
        if (!op.multi || release) {
            rx.give(op);
            return true;
        }
        return false;
    }

    private static void write(UtilCompletionQueue cq, boolean reserved, boolean error, Object ctx, long flags, long len,
                              ByteBuffer buf, int bufOffset, long data, long tag, long olen, int err, byte[] errData,
                              long src) {
        if (reserved) {
            if (error) {
                cq.completeError(ctx, flags, len, buf, bufOffset, data, tag, olen, err, 0, errData,
                        errData == null ? 0 : errData.length, src);
            } else {
                cq.complete(ctx, flags, len, buf, bufOffset, data, tag, src);
            }
        } else if (error) {
            cq.completeUnsolicitedError(ctx, flags, len, buf, bufOffset, data, tag, olen, err, 0, errData,
                    errData == null ? 0 : errData.length, src);
        } else {
            cq.completeUnsolicited(ctx, flags, len, buf, bufOffset, data, tag, src);
        }
    }

    /**
     * A message whose bytes could not be read (a failed CMA read): the receive completes with
     * {@code err}; a multi-receive stays posted when the CQ has room for an entry of its own.
     *
     * @return true when the receive is given back
     */
    boolean failMessage(ShmPostedReceive op, Peer sender, boolean tagged, long tag, boolean hasData, long data, int err) {
        long flags = Fi.FI_RECV | (tagged ? Fi.FI_TAGGED : Fi.FI_MSG) | (hasData ? Fi.FI_REMOTE_CQ_DATA : 0);
        long src = sourceOf(sender);
        UtilCompletionQueue cq = ep.rxCq;
        if (ep.recvCntr != null) {
            ep.recvCntr.incrementError();
        }
        if (op.multi) {
            if (cq.reserve() == 0) {
                cq.completeError(op.context, flags, 0, op.buf, op.bufOffset + op.multiOffset, data, tag, 0, err, 0,
                        null, 0, src);
                return false; // the buffer stays posted
            }
            // no room for an entry of its own (R6): the error releases the buffer
            ep.receiver.unpost(op);
            flags |= Fi.FI_MULTI_RECV;
        }
        cq.completeError(op.context, flags, 0, op.buf, op.bufOffset + op.multiOffset, data, tag, 0, err, 0, null, 0, src);
        ep.receiver.give(op);
        return true;
    }

    /** A receive that ends without a message (failed peer or ring, cancel, departure): {@code err}, and it is given back. */
    void fail(ShmPostedReceive op, int err, boolean tagged) {
        ep.rxCq.completeError(op.context, Fi.FI_RECV | (tagged ? Fi.FI_TAGGED : Fi.FI_MSG)
                        | (op.multi ? Fi.FI_MULTI_RECV : 0), 0, op.buf, op.bufOffset, 0, 0, 0, err, 0, null, 0,
                Fi.FI_ADDR_NOTAVAIL);
        if (ep.recvCntr != null) {
            ep.recvCntr.incrementError();
        }
        ep.receiver.give(op);
    }
}
