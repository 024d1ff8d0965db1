package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import java.nio.ByteBuffer;

/**
 * The argument checks every provider makes when an operation is posted or a queue's error
 * entry is read, so that one condition gets one errno on every provider (the table of
 * {@code docs/ERRORS.md}, part of the API contract):
 * <ul>
 * <li>a buffer the provider would write into (a receive, the local side of an RMA read, the
 *     result of a fetching atomic) that is read-only: {@code -EINVAL};</li>
 * <li>a message, receive buffer or RMA transfer longer than {@code max_msg_size}:
 *     {@code -EMSGSIZE}, for sends and receives alike (a multi-receive buffer holds many
 *     messages and is exempt);</li>
 * <li>an inject ({@code fi_inject*}, {@code fi_inject_write}, {@code FI_INJECT}) longer than
 *     {@code inject_size}: {@code -EMSGSIZE}, as libfabric's psm2, psm3 and cxi providers
 *     answer (its tcp, rxm and shm providers only assert);</li>
 * <li>a flag bit the call does not take (unknown, or belonging to another call such as
 *     {@code FI_MULTI_RECV} on a send or {@code FI_REMOTE_CQ_DATA} on a receive):
 *     {@code -EBADFLAGS}, as libfabric's util layer and its cxi and ucx providers answer;</li>
 * <li>a missing buffer, message or iov, or more iovs than {@code iov_limit}: {@code -EINVAL}
 *     ({@link #payload}).</li>
 * </ul>
 * A refused call changes nothing: providers call these before they reserve CQ room, take a
 * descriptor, open a connection or queue anything. Each check is a few branches and
 * allocates nothing (data path).
 */
public final class PostChecks {
    /** Every completion level of fi_cq(3) (R11); a provider may give a stronger one. */
    private static final long LEVELS = Fi.FI_INJECT_COMPLETE | Fi.FI_TRANSMIT_COMPLETE | Fi.FI_DELIVERY_COMPLETE
            | Fi.FI_MATCH_COMPLETE | Fi.FI_COMMIT_COMPLETE;

    /** Flags {@code fi_sendmsg} and {@code fi_tsendmsg} take (fi_msg(3), fi_tagged(3) "FLAGS"). */
    public static final long SEND_MSG_FLAGS = Fi.FI_REMOTE_CQ_DATA | Fi.FI_COMPLETION | Fi.FI_MORE | Fi.FI_INJECT
            | Fi.FI_FENCE | LEVELS;
    /** Flags {@code fi_recvmsg} takes (fi_msg(3) "FLAGS"). */
    public static final long RECV_MSG_FLAGS = Fi.FI_COMPLETION | Fi.FI_MORE | Fi.FI_MULTI_RECV
            | Fi.FI_TRANSMIT_COMPLETE;
    /** Flags {@code fi_trecvmsg} takes (fi_tagged(3) "FLAGS"; tagged multi-receive is not offered). */
    public static final long TRECV_MSG_FLAGS = Fi.FI_COMPLETION | Fi.FI_MORE | Fi.FI_PEEK | Fi.FI_CLAIM
            | Fi.FI_DISCARD;
    /** Flags {@code fi_readmsg} takes (fi_rma(3) "FLAGS": the others apply to writes). */
    public static final long READ_MSG_FLAGS = Fi.FI_COMPLETION | Fi.FI_MORE | Fi.FI_FENCE;
    /** Flags {@code fi_writemsg} takes (fi_rma(3) "FLAGS"). */
    public static final long WRITE_MSG_FLAGS = SEND_MSG_FLAGS;
    /** Flags {@code fi_cq_readerr} takes: none (fi_cq(3) defines none). */
    public static final long CQ_READ_ERR_FLAGS = 0;
    /** Flags {@code fi_eq_read} and {@code fi_eq_sread} take (fi_eq(3)). */
    public static final long EQ_READ_FLAGS = Fi.FI_PEEK;
    /** Flags {@code fi_eq_readerr} and {@code fi_eq_write} take: none. */
    public static final long EQ_NO_FLAGS = 0;

    /**
     * The mark an endpoint's {@code fi_inject*} calls ({@code inject}, {@code injectData},
     * {@code tinject}, {@code tinjectData}, {@code injectWrite}) add to the flags their funnel
     * gets: such a call takes no CQ room and reports nothing (fi_msg(3), fi_rma(3)). Every other
     * transmit reports: {@code FI_INJECT} in the op flags or in a {@code *Msg} call's flags only
     * frees the buffer at the call. No libfabric operation flag uses this bit; the flag checks
     * refuse it from a caller, and no completion carries it.
     */
    public static final long INJECT_CALL = 1L << 62;

    private PostChecks() {
    }

    /**
     * Whether a transmit posted with {@code flags} (as the endpoint's funnel gets them) reports:
     * takes room in the transmit CQ, writes an error entry if it fails and, with
     * {@code FI_COMPLETION}, a completion when done. All but the {@code fi_inject*} calls
     * ({@link #INJECT_CALL}) do.
     */
    public static boolean reportsToCq(long flags) {
        return (flags & INJECT_CALL) == 0;
    }

    /** 0 when {@code flags} has only bits of {@code valid} (one of this class's sets), else {@code -EBADFLAGS}. */
    public static int flags(long flags, long valid) {
        return (flags & ~valid) == 0 ? 0 : -Errno.EBADFLAGS;
    }

    /**
     * A buffer the provider writes into that has no length rule of its own (a fetching
     * atomic's result): 0, or {@code -EINVAL} when it is missing or read-only.
     */
    public static int writable(ByteBuffer buf) {
        return buf == null || buf.isReadOnly() ? -Errno.EINVAL : 0;
    }

    /**
     * The length of a message, a receive buffer or an RMA transfer: 0, or {@code -EMSGSIZE}
     * above {@code maxMsgSize}.
     */
    public static int length(long length, long maxMsgSize) {
        return length > maxMsgSize ? -Errno.EMSGSIZE : 0;
    }

    /**
     * The length of a transmit: 0, or {@code -EMSGSIZE} above {@code maxMsgSize}, or, when
     * {@code inject}, above {@code injectSize}.
     */
    public static int transmit(long length, boolean inject, long injectSize, long maxMsgSize) {
        return length > maxMsgSize || (inject && length > injectSize) ? -Errno.EMSGSIZE : 0;
    }

    /**
     * The bytes of a transmit's payload: {@code buf}'s, or without it those of the first
     * {@code msg.iovCount()} iovs of {@code msg}; {@code -EINVAL} when the buffer, the message
     * or one of its iovs is missing, or it has more than {@code iovLimit} iovs.
     */
    public static long payload(ByteBuffer buf, Msg msg, int iovLimit) {
        if (msg == null) {
            return buf == null ? -Errno.EINVAL : buf.remaining();
        }
        int n = msg.iovCount();
        if (n > iovLimit) {
            return -Errno.EINVAL;
        }
        long length = 0;
        for (int i = 0; i < n; i++) {
            ByteBuffer b = msg.iov(i);
            if (b == null) {
                return -Errno.EINVAL;
            }
            length += b.remaining();
        }
        return length;
    }

    /**
     * The buffers an operation's data lands in (a receive's; the local side of an RMA read):
     * {@code buf}, or without it the first {@code iovCount} iovs of {@code msg} (the caller has
     * checked {@code iovCount} against its limit). 0; {@code -EINVAL} when one is missing or
     * read-only; {@code -EMSGSIZE} when together they hold more than {@code maxMsgSize},
     * unless {@code flags} has {@code FI_MULTI_RECV} (a multi-receive buffer holds many
     * messages, each at most {@code maxMsgSize}).
     */
    public static int landing(ByteBuffer buf, Msg msg, int iovCount, long flags, long maxMsgSize) {
        long capacity;
        if (msg == null) {
            if (buf == null || buf.isReadOnly()) {
                return -Errno.EINVAL;
            }
            capacity = buf.remaining();
        } else {
            capacity = 0;
            for (int i = 0; i < iovCount; i++) {
                ByteBuffer b = msg.iov(i);
                if (b == null || b.isReadOnly()) {
                    return -Errno.EINVAL;
                }
                capacity += b.remaining();
            }
        }
        return capacity > maxMsgSize && (flags & Fi.FI_MULTI_RECV) == 0 ? -Errno.EMSGSIZE : 0;
    }
}
