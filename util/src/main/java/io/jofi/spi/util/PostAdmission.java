package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.RmaMsg;
import java.nio.ByteBuffer;

/**
 * What an endpoint's {@link UtilEndpoint.Limits} decide about a posted call: the caps gate and
 * the checks of its arguments, flags and lengths (steps 2 to 5 of {@link UtilEndpoint}'s list),
 * with one answer on every provider (docs/ERRORS.md). What the endpoint's state decides — open,
 * a CQ bound — stays {@link UtilEndpoint}'s, which calls these in the order its list gives.
 *
 * <p>Every method answers 0 (or, for the lengths, the call's bytes) or a negative errno, and
 * changes nothing: a few branches on final fields, no allocation (data path).
 */
final class PostAdmission {
    private static final long MSG_DIRECTIONS = Fi.FI_SEND | Fi.FI_RECV;
    private static final long RMA_DIRECTIONS = Fi.FI_READ | Fi.FI_WRITE;

    private final long caps;
    private final long injectSize;
    private final long maxMsgSize;
    private final int iovLimit;
    private final int rmaIovLimit;

    PostAdmission(UtilEndpoint.Limits limits) {
        this.caps = limits.caps();
        this.injectSize = limits.injectSize();
        this.maxMsgSize = limits.maxMsgSize();
        this.iovLimit = limits.iovLimit();
        this.rmaIovLimit = limits.rmaIovLimit();
    }

    /**
     * 0 when the caps hold {@code primary} and the direction {@code direction} of its modifier
     * pair ({@code FI_SEND}/{@code FI_RECV} for messages, {@code FI_READ}/{@code FI_WRITE} for
     * RMA and atomics; a pair the caps do not name at all implies both), else {@code -ENOSYS}.
     */
    int gate(long primary, long direction) {
        if ((caps & primary) == 0) {
            return -Errno.ENOSYS;
        }
        long named = caps & (primary == Fi.FI_MSG || primary == Fi.FI_TAGGED ? MSG_DIRECTIONS : RMA_DIRECTIONS);
        return named == 0 || (named & direction) != 0 ? 0 : -Errno.ENOSYS;
    }

    /** A {@code *sendMsg}: the message present ({@code -EINVAL}), then its flags ({@code -EBADFLAGS}). */
    int sendMessage(Msg msg, long flags) {
        return msg == null ? -Errno.EINVAL : PostChecks.flags(flags, PostChecks.SEND_MSG_FLAGS);
    }

    /** A {@code *recvMsg}: the message present with at most {@code iovLimit} iovs ({@code -EINVAL}), then its flags. */
    int receiveMessage(Msg msg, long flags, long validFlags) {
        if (msg == null || msg.iovCount() > iovLimit) {
            return -Errno.EINVAL;
        }
        return PostChecks.flags(flags, validFlags);
    }

    /**
     * {@code FI_MULTI_RECV} in {@code flags}: {@code -ENOSYS} without that capability, and
     * {@code -EINVAL} for a message ({@code msg}, null for {@code recv}) of more than one iov.
     */
    int multiReceive(Msg msg, long flags) {
        if ((flags & Fi.FI_MULTI_RECV) == 0) {
            return 0;
        }
        if ((caps & Fi.FI_MULTI_RECV) == 0) {
            return -Errno.ENOSYS;
        }
        return msg != null && msg.iovCount() != 1 ? -Errno.EINVAL : 0;
    }

    /** A receive's buffers ({@link PostChecks#landing}; {@code flags} decide the multi-receive exemption). */
    int landing(ByteBuffer buf, Msg msg, long flags) {
        return PostChecks.landing(buf, msg, msg == null ? 1 : msg.iovCount(), flags, maxMsgSize);
    }

    /**
     * A send's bytes ({@link PostChecks#payload}), or the negative errno of a missing buffer,
     * too many iovs ({@code -EINVAL}) or a length above {@code maxMsgSize} or, for an
     * {@code inject}, the inject size ({@code -EMSGSIZE}).
     */
    long transmitLength(ByteBuffer buf, Msg msg, boolean inject) {
        long length = PostChecks.payload(buf, msg, iovLimit);
        if (length < 0) {
            return length;
        }
        int rc = PostChecks.transmit(length, inject, injectSize, maxMsgSize);
        return rc != 0 ? rc : length;
    }

    /** An RMA message: present with {@code [1, rmaIovLimit]} remote segments ({@code -EINVAL}), then its flags. */
    int rmaMessage(RmaMsg msg, long flags, long validFlags) {
        if (msg == null || msg.rmaIovCount() < 1 || msg.rmaIovCount() > rmaIovLimit) {
            return -Errno.EINVAL;
        }
        return PostChecks.flags(flags, validFlags);
    }

    /**
     * An RMA's local bytes, or the negative errno: the payload as a send's, remote segments of a
     * message that do not add up to them ({@code -EINVAL}), a read's buffers as a receive's
     * ({@link PostChecks#landing}), a write's length as a send's.
     */
    long rmaLength(boolean read, ByteBuffer buf, RmaMsg msg, boolean inject) {
        long length = PostChecks.payload(buf, msg, iovLimit);
        if (length < 0) {
            return length;
        }
        if (msg != null) {
            long remote = 0;
            for (int i = 0; i < msg.rmaIovCount(); i++) {
                remote += msg.rmaLen(i);
            }
            if (remote != length) {
                return -Errno.EINVAL;
            }
        }
        int rc = read ? PostChecks.landing(buf, msg, msg == null ? 1 : msg.iovCount(), 0, maxMsgSize)
                : PostChecks.transmit(length, inject, injectSize, maxMsgSize);
        return rc != 0 ? rc : length;
    }

    /**
     * A 64-bit atomic: a compare operation ({@code FI_CSWAP} … {@code FI_MSWAP}) only through
     * {@code compareAtomic} ({@code -EOPNOTSUPP}: fi_atomic(3), the compare operations are
     * {@code fi_compare_atomic}'s; a {@code fetchAtomic(FI_CSWAP)} would otherwise swap against
     * compare 0), and a fetching one's {@code result} writable with 8 bytes ({@code -EINVAL}).
     */
    int atomic(int op, ByteBuffer result, boolean fetch, boolean compareCall) {
        if (!compareCall && op >= Fi.FI_CSWAP && op <= Fi.FI_MSWAP) {
            return -Errno.EOPNOTSUPP;
        }
        if (fetch && (PostChecks.writable(result) != 0 || result.remaining() < Long.BYTES)) {
            return -Errno.EINVAL;
        }
        return 0;
    }

    /**
     * A typed atomic of {@code kind} (0, {@code FI_FETCH_ATOMIC}, {@code FI_COMPARE_ATOMIC}):
     * {@code bound}, the provider's most elements for the pair, negative as its answer;
     * {@code count} within {@code [1, bound]}, and {@code buf} (but for {@code FI_ATOMIC_READ}),
     * {@code compare} (a compare) and {@code result} (writable; a fetch or compare) holding
     * {@code count} elements: else {@code -EINVAL}.
     */
    int typedAtomic(long kind, int datatype, int op, int count, int bound, ByteBuffer buf, ByteBuffer compare,
                    ByteBuffer result) {
        if (bound < 0) {
            return bound;
        }
        if (count < 1 || count > bound) {
            return -Errno.EINVAL;
        }
        long bytes = (long) count * AtomicTable.size(datatype);
        if (op != Fi.FI_ATOMIC_READ && (buf == null || buf.remaining() < bytes)
                || kind == Fi.FI_COMPARE_ATOMIC && (compare == null || compare.remaining() < bytes)
                || kind != 0 && (PostChecks.writable(result) != 0 || result.remaining() < bytes)) {
            return -Errno.EINVAL;
        }
        return 0;
    }
}
