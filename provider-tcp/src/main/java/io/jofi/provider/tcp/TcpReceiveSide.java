package io.jofi.provider.tcp;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.TaggedMsg;
import io.jofi.spi.util.PostChecks;
import java.nio.ByteBuffer;

/**
 * A tcp endpoint's receive posts ({@code fi_recv}, {@code fi_recvmsg}, {@code fi_trecv},
 * {@code fi_trecvmsg}, {@code fi_cancel}) into the {@link RxMatcher} its connections deliver
 * into — one connection for an MSG endpoint, every peer's for an RDM endpoint — and the
 * endpoint options ({@code FI_OPT_MIN_MULTI_RECV}, {@code FI_OPT_CM_DATA_SIZE}). Posts take the
 * endpoint's lock.
 */
final class TcpReceiveSide {
    /** Default FI_OPT_MIN_MULTI_RECV (fi_endpoint(3) leaves it to the provider). */
    static final long DEFAULT_MIN_MULTI_RECV = 64;

    /** What the endpoint says about posting a receive now. */
    interface Owner {
        /** 0, or the negative errno of the endpoint's fid state (closed, departed, failed). */
        int postState();

        /**
         * Whether receives may be posted: enabled, and (MSG) the connection not ended with
         * nothing left to receive; else {@code -EOPBADSTATE}.
         */
        boolean receiving();

        /** A receive was queued: a connection whose message waited for one reads on. */
        void receivePosted();
    }

    private final Object lock;
    private final Owner owner;
    private final DataPathBindings bound;
    final RxMatcher matcher;
    private final long caps;
    private final long rxOpFlags;
    /** {@code FI_DIRECTED_RECV} (RDM): a receive's source address restricts it to that peer. */
    private boolean directed;
    private long minMultiRecv = DEFAULT_MIN_MULTI_RECV;

    TcpReceiveSide(Object lock, Owner owner, DataPathBindings bound, Info info, TcpProvider provider) {
        this.lock = lock;
        this.owner = owner;
        this.bound = bound;
        this.caps = info.caps();
        this.rxOpFlags = info.rxAttr().opFlags();
        this.matcher = new RxMatcher(TcpConnection.queueSize(info), provider.unexpectedMessages(),
                provider.unexpectedBytes());
    }

    /** With {@code FI_DIRECTED_RECV} a receive's source address restricts it to that peer (RDM). Under lock. */
    void directed(boolean on) {
        directed = on;
    }

    /** After each {@code bind}: the matcher completes into the receive CQ and counter. Under lock. */
    void bound() {
        matcher.cq(bound.rxCq);
        matcher.counter(bound.recvCntr);
    }

    /** {@code fi_recv}: matched in posting order. */
    int recv(ByteBuffer buf, MemoryRegion desc, long srcAddr, Object context) {
        int rc = PostChecks.landing(buf, null, 1, rxOpFlags, TcpProvider.MAX_MSG_SIZE);
        if (rc != 0) {
            return rc;
        }
        return post(buf, null, 1, rxOpFlags | bound.rxCompletion(), context, false, 0, 0, srcAddr);
    }

    /**
     * {@code fi_recvmsg}: flags {@code FI_COMPLETION}, {@code FI_MULTI_RECV} (one buffer, one
     * iov: messages are placed one after another, each completion points into it with
     * {@code buf}/{@code bufOffset}; the completion that leaves less than
     * {@code FI_OPT_MIN_MULTI_RECV} bytes carries {@code FI_MULTI_RECV} and releases it).
     */
    int recvMsg(Msg msg, long flags) {
        if (msg == null || msg.iovCount() < 0 || msg.iovCount() > TcpProvider.IOV_LIMIT) {
            return -Errno.EINVAL;
        }
        if ((flags & Fi.FI_MULTI_RECV) != 0 && msg.iovCount() != 1) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.RECV_MSG_FLAGS);
        if (rc == 0) {
            rc = PostChecks.landing(null, msg, msg.iovCount(), flags, TcpProvider.MAX_MSG_SIZE);
        }
        if (rc != 0) {
            return rc;
        }
        return post(null, msg, msg.iovCount(), flags | bound.rxCompletion(), msg.context(), false, 0, 0, msg.addr());
    }

    /** {@code fi_trecv}: matches a tagged message whose tag equals {@code tag} outside the {@code ignore} bits. */
    int trecv(ByteBuffer buf, MemoryRegion desc, long srcAddr, long tag, long ignore, Object context) {
        if ((caps & Fi.FI_TAGGED) == 0) {
            return -Errno.ENOSYS;
        }
        int rc = PostChecks.landing(buf, null, 1, 0, TcpProvider.MAX_MSG_SIZE);
        if (rc != 0) {
            return rc;
        }
        return post(buf, null, 1, rxOpFlags | bound.rxCompletion(), context, true, tag, ignore, srcAddr);
    }

    /**
     * {@code fi_trecvmsg}: as {@link #trecv}; with {@code FI_PEEK} (and {@code FI_CLAIM} /
     * {@code FI_DISCARD}) looks at the unexpected messages without receiving: a completion
     * with len/tag/data of the first match, or an error completion {@code ENOMSG}; with
     * {@code FI_CLAIM} alone receives the message a peek claimed for the same context
     * ({@code -ENOMSG} when there is none); {@code FI_CLAIM|FI_DISCARD} drops it.
     */
    int trecvMsg(TaggedMsg msg, long flags) {
        if ((caps & Fi.FI_TAGGED) == 0) {
            return -Errno.ENOSYS;
        }
        if (msg == null || msg.iovCount() < 0 || msg.iovCount() > TcpProvider.IOV_LIMIT) {
            return -Errno.EINVAL;
        }
        int rc = PostChecks.flags(flags, PostChecks.TRECV_MSG_FLAGS); // FI_MULTI_RECV is not for tagged receives
        if (rc == 0) {
            rc = PostChecks.landing(null, msg, msg.iovCount(), 0, TcpProvider.MAX_MSG_SIZE);
        }
        if (rc != 0) {
            return rc;
        }
        return post(null, msg, msg.iovCount(), flags | bound.rxCompletion(), msg.context(), true,
                msg.tag(), msg.ignore(), msg.addr());
    }

    private int post(ByteBuffer buf, Msg msg, int iovCount, long flags, Object context, boolean tagged, long tag,
                     long ignore, long srcAddr) {
        synchronized (lock) {
            int rc = owner.postState();
            if (rc != 0) {
                return rc;
            }
            boolean peek = tagged && (flags & Fi.FI_PEEK) != 0;
            boolean claim = tagged && !peek && (flags & Fi.FI_CLAIM) != 0;
            if (!owner.receiving()) {
                // After the connection ended, only messages that had arrived can still be received.
                return -Errno.EOPBADSTATE;
            }
            if (bound.rxCq == null) {
                return -Errno.ENOCQ;
            }
            if (!peek && !claim && !matcher.canPost(tagged)) {
                return -Errno.EAGAIN;
            }
            rc = bound.rxCq.reserve();
            if (rc != 0) {
                return rc;
            }
            RxOp op = matcher.take();
            op.context = context;
            op.src = directed ? srcAddr : Fi.FI_ADDR_UNSPEC;
            op.complete = (flags & Fi.FI_COMPLETION) != 0;
            op.tagged = tagged;
            op.tag = tag;
            op.ignore = ignore;
            long cap = 0;
            if (msg == null) {
                op.buffer(0, buf);
                op.count = 1;
                op.buf = buf;
                op.bufOffset = buf.position();
                cap = buf.remaining();
            } else {
                for (int i = 0; i < iovCount; i++) {
                    op.buffer(i, msg.iov(i));
                    cap += msg.iov(i).remaining();
                }
                op.count = iovCount;
                op.buf = iovCount > 0 ? msg.iov(0) : null;
                op.bufOffset = iovCount > 0 ? msg.iov(0).position() : 0;
            }
            op.capacity = cap;
            if (peek) {
                matcher.peek(op, flags);
                return 0;
            }
            if (claim) {
                if (!matcher.claim(op, flags)) {
                    bound.rxCq.unreserve();
                    matcher.give(op);
                    return -Errno.ENOMSG;
                }
                return 0;
            }
            if (!tagged && (flags & Fi.FI_MULTI_RECV) != 0) {
                op.multi = true;
                op.minFree = minMultiRecv;
            }
            // An earlier message that waits is this receive's (in order); else it is queued.
            matcher.post(op);
            owner.receivePosted();
            return 0;
        }
    }

    /**
     * {@code fi_cancel}: a pending receive with this context completes with {@code ECANCELED}
     * (R13).
     *
     * @return 0, or {@code -ENOENT} when no such receive is pending
     */
    int cancel(Object context) {
        synchronized (lock) {
            int rc = owner.postState();
            if (rc != 0) {
                return rc;
            }
            return matcher.cancel(context);
        }
    }

    /**
     * {@code fi_getopt}: {@code FI_OPT_CM_DATA_SIZE} (256), {@code FI_OPT_MIN_MULTI_RECV}.
     *
     * @throws FabricException {@code ENOPROTOOPT} for other levels/options
     */
    long getOpt(int level, int name) throws FabricException {
        if (level == Fi.FI_OPT_ENDPOINT && name == Fi.FI_OPT_CM_DATA_SIZE) {
            return TcpProvider.CM_DATA_SIZE;
        }
        if (level == Fi.FI_OPT_ENDPOINT && name == Fi.FI_OPT_MIN_MULTI_RECV) {
            synchronized (lock) {
                return minMultiRecv;
            }
        }
        throw new FabricException(Errno.ENOPROTOOPT, "getOpt: option " + name + " at level " + level
                + " is not supported (FI_OPT_CM_DATA_SIZE is)");
    }

    /**
     * {@code fi_setopt}: {@code FI_OPT_CM_DATA_SIZE} may be set to at most 256 (the wire's
     * limit); {@code FI_OPT_MIN_MULTI_RECV} applies to multi-receive buffers posted afterwards.
     *
     * @throws FabricException {@code EINVAL} for a larger size; {@code ENOPROTOOPT} for other options
     */
    void setOpt(int level, int name, long value) throws FabricException {
        if (level == Fi.FI_OPT_ENDPOINT && name == Fi.FI_OPT_CM_DATA_SIZE) {
            if (value < 0 || value > TcpProvider.CM_DATA_SIZE) {
                throw new FabricException(Errno.EINVAL, "setOpt: FI_OPT_CM_DATA_SIZE " + value + " is outside 0..256");
            }
            return;
        }
        if (level == Fi.FI_OPT_ENDPOINT && name == Fi.FI_OPT_MIN_MULTI_RECV) {
            if (value < 0) {
                throw new FabricException(Errno.EINVAL, "setOpt: FI_OPT_MIN_MULTI_RECV " + value + " is negative");
            }
            synchronized (lock) {
                // applies to multi-receive buffers posted from now on (fi_endpoint(3))
                minMultiRecv = value;
            }
            return;
        }
        throw new FabricException(Errno.ENOPROTOOPT, "setOpt: option " + name + " at level " + level + " is not supported");
    }
}
