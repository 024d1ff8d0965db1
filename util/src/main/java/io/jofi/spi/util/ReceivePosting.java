package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.TaggedMsg;
import java.nio.ByteBuffer;

/**
 * Posts an endpoint's receives into its {@link ReceiveQueue} — written once for every provider:
 * the receive with its CQ room (R6), {@code FI_PEEK}/{@code FI_CLAIM}/{@code FI_DISCARD}, the
 * multi-receive buffer, and the option {@code FI_OPT_MIN_MULTI_RECV}. The provider checks its
 * own state (enabled, connected, failed) first and calls these under its endpoint's lock.
 *
 * <p>The answers (fi_endpoint(3), fi_msg(3), fi_tagged(3); libfabric's tcp, shm and rxm):
 * <ul>
 *   <li>{@code FI_OPT_MIN_MULTI_RECV} is a {@code size_t}: every value from 0 up is taken and
 *       read back as set; it applies to multi-receive buffers posted afterwards. 0 releases a
 *       buffer once it is full, as 1 does. A negative value is no size: {@code EINVAL}, and
 *       the option keeps its value. The default is {@link #DEFAULT_MIN_MULTI_RECV} on every
 *       provider (fi_endpoint(3) leaves it to the provider; JOFI has one).</li>
 *   <li>{@code FI_MULTI_RECV} makes an untagged receive a multi-receive buffer, whether it came
 *       in {@code recvMsg}'s flags or in the receive op flags ({@code RxAttr.opFlags}) that
 *       {@code recv} applies. A tagged receive takes one message: the op flags' {@code
 *       FI_MULTI_RECV} does not apply to {@code trecv} (as in libfabric's rxm and tcp, whose
 *       tagged receives ignore it), and {@code trecvMsg} refuses it ({@code -EBADFLAGS}).</li>
 * </ul>
 */
public final class ReceivePosting {
    /**
     * {@code FI_OPT_MIN_MULTI_RECV} until it is set: a multi-receive buffer is released once
     * less than 64 bytes are left.
     */
    public static final long DEFAULT_MIN_MULTI_RECV = 64;

    private final ReceiveQueue queue;
    /** Set by {@code setOpt} and read by posts of multi-receive buffers, on any thread. */
    private volatile long minMultiRecv = DEFAULT_MIN_MULTI_RECV;

    /** Posting into {@code queue}. */
    public ReceivePosting(ReceiveQueue queue) {
        this.queue = queue;
    }

    /** The receive side this posts into. */
    public ReceiveQueue queue() {
        return queue;
    }

    /**
     * Posts a receive the endpoint checked ({@link UtilEndpoint#postRecv}): room in the queue
     * ({@code -EAGAIN}) and in {@code rxCq} (R6), then it takes the oldest waiting message it
     * accepts or is queued. Untagged with {@code FI_MULTI_RECV}: a multi-receive buffer.
     *
     * @param buf    the one buffer, or null when {@code msg} holds the iovs
     * @return 0, or a negative errno (nothing posted then)
     */
    public int post(UtilCompletionQueue rxCq, ByteBuffer buf, Msg msg, long srcAddr, boolean tagged, long tag,
                    long ignore, long flags, Object context) {
        if (!queue.canPost(tagged)) {
            return -Errno.EAGAIN;
        }
        int rc = rxCq.reserve();
        if (rc != 0) {
            return rc;
        }
        PostedReceive r = queue.newReceive();
        if (tagged) {
            r.tagged(context, srcAddr, tag, ignore, flags & ~Fi.FI_MULTI_RECV);
        } else {
            r.untagged(context, srcAddr, flags);
        }
        addBuffers(r, buf, msg);
        if (!tagged && (flags & Fi.FI_MULTI_RECV) != 0) {
            r.multiReceive(minMultiRecv);
        }
        queue.post(r);
        return 0;
    }

    /**
     * {@code fi_trecvmsg} with {@code FI_PEEK} (and {@code FI_CLAIM} / {@code FI_DISCARD}):
     * a completion with len/tag/data of the first match, or an error completion
     * {@code ENOMSG}; with {@code FI_CLAIM} alone it receives the message a peek claimed for
     * the same context, with {@code FI_CLAIM|FI_DISCARD} drops it.
     *
     * @param srcAddr the sender to match ({@code FI_ADDR_UNSPEC}: any)
     * @return 0, {@code -ENOMSG} (a claim with nothing claimed), or a negative errno of the CQ
     */
    public int peekOrClaim(UtilCompletionQueue rxCq, TaggedMsg msg, long srcAddr, long flags) {
        int rc = rxCq.reserve();
        if (rc != 0) {
            return rc;
        }
        PostedReceive r = queue.newReceive().tagged(msg.context(), srcAddr, msg.tag(), msg.ignore(), flags);
        if ((flags & Fi.FI_PEEK) != 0) {
            queue.peek(r, flags);
            return 0;
        }
        addBuffers(r, null, msg);
        if (!queue.claim(r, flags)) {
            rxCq.unreserve();
            queue.recycle(r);
            return -Errno.ENOMSG;
        }
        return 0;
    }

    private static void addBuffers(PostedReceive r, ByteBuffer buf, Msg msg) {
        if (msg == null) {
            r.buffer(buf);
            return;
        }
        for (int i = 0; i < msg.iovCount(); i++) {
            r.buffer(msg.iov(i));
        }
    }

    /** Whether {@code (level, name)} is {@code FI_OPT_MIN_MULTI_RECV}, the option this answers. */
    public static boolean isMinMultiRecv(int level, int name) {
        return level == Fi.FI_OPT_ENDPOINT && name == Fi.FI_OPT_MIN_MULTI_RECV;
    }

    /** {@code fi_getopt(FI_OPT_MIN_MULTI_RECV)}: the value set, else the default. */
    public long minMultiRecv() {
        return minMultiRecv;
    }

    /**
     * {@code fi_setopt(FI_OPT_MIN_MULTI_RECV)}: applies to multi-receive buffers posted
     * afterwards.
     *
     * @throws FabricException {@code EINVAL} for a negative value (the option is unchanged)
     */
    public void minMultiRecv(long value) throws FabricException {
        if (value < 0) {
            throw new FabricException(Errno.EINVAL, "setOpt: FI_OPT_MIN_MULTI_RECV " + value
                    + " is negative (a size in bytes, 0 or more)");
        }
        minMultiRecv = value;
    }
}
