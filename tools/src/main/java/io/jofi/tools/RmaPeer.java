package io.jofi.tools;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.RmaMsg;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The RMA side of {@code rma_bw} on one connection, as fabtests' fi_rma_bw sets it up: the
 * receive buffer registered as the target of the peer's writes and reads, the key exchange
 * (each side sends {@code {addr, len, key}} of its target as a 24-byte message, little-endian
 * as fabtests' x86 C peer writes it; addr is the region's address where the provider uses
 * virtual addresses, else 0), then fabtests' sync; and the posting of one operation.
 */
final class RmaPeer {
    /** fabtests' remote CQ data of fi_writedata (its ft_init_cq_data for 8-byte CQ data). */
    static final long CQ_DATA = 0x0123456789abcdefL;
    private static final int KEYS_BYTES = 24;

    private final PerfConnection c;
    private final RmaMsg msg = new RmaMsg(1);
    private final ByteBuffer txView;
    private final ByteBuffer rxView;
    private final long deliveryComplete;
    private long remoteAddr;
    private long remoteKey;

    private RmaPeer(PerfConnection c, boolean deliveryComplete) {
        this.c = c;
        this.txView = c.txData().duplicate();
        this.rxView = c.rxData().duplicate();
        this.deliveryComplete = deliveryComplete ? Fi.FI_DELIVERY_COMPLETE : 0;
    }

    /**
     * Registers the receive buffer as this side's target, exchanges the keys over the
     * connection (send ours, then read the peer's before reposting that receive) and syncs.
     */
    static RmaPeer exchangeKeys(PerfConnection c, boolean deliveryComplete) throws FabricException {
        RmaPeer p = new RmaPeer(c, deliveryComplete);
        ByteBuffer target = c.rxData().duplicate().clear();
        MemoryRegion mr = c.track(c.domain().register(target,
                Fi.FI_RECV | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE | Fi.FI_READ, 0, 0x5243, 0, "rma-target"));
        ByteBuffer keys = c.txData().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        keys.putLong(0, mr.address()).putLong(8, target.capacity()).putLong(16, mr.key());
        try {
            c.sendPlain(KEYS_BYTES);
        } finally {
            DataPattern.fill(c.txData(), KEYS_BYTES); // the pattern back for the data messages
        }
        ByteBuffer view = c.awaitMessage();
        ByteBuffer theirs = c.rxData().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        p.remoteAddr = theirs.getLong(0);
        p.remoteKey = theirs.getLong(16);
        c.repost(view);
        c.sync();
        return p;
    }

    /**
     * Posts one operation of {@code size} bytes (write from the transmit buffer, write with CQ
     * data, or read into the receive buffer) at the peer's target; a write below the inject
     * size without {@code -U} is injected.
     *
     * @return whether a transmit completion follows
     */
    boolean post(RmaOp op, int size) {
        long deadline = 0;
        int rc;
        if (op == RmaOp.WRITE && size < c.injectLimit() && deliveryComplete == 0) {
            txView.clear().limit(size);
            while ((rc = c.endpoint().injectWrite(txView, c.peer(), remoteAddr, remoteKey)) == -Errno.EAGAIN) {
                deadline = c.awaitRoom(deadline, "room to inject a write");
            }
            check(rc, "inject write");
            return false;
        }
        ByteBuffer local = op == RmaOp.READ ? rxView : txView;
        local.clear().limit(size);
        msg.buffer(local, null).addr(c.peer()).context(local).data(op == RmaOp.WRITEDATA ? CQ_DATA : 0)
                .rma(remoteAddr, size, remoteKey);
        // a read is complete when its data has arrived: delivery complete is a write's flag
        // (-U asks it of every write; JOFI refuses it on a read, libfabric's tcp ignores it)
        long flags = Fi.FI_COMPLETION | (op == RmaOp.READ ? 0 : deliveryComplete) | (op == RmaOp.WRITEDATA ? Fi.FI_REMOTE_CQ_DATA : 0);
        while ((rc = op == RmaOp.READ ? c.endpoint().readMsg(msg, flags) : c.endpoint().writeMsg(msg, flags)) == -Errno.EAGAIN) {
            deadline = c.awaitRoom(deadline, "room to post " + op.label);
        }
        check(rc, op.label);
        return true;
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new CommandFailure(what + " failed: " + Errno.strerror(-rc));
        }
    }

    /** fi_rma_bw's {@code -o}. */
    enum RmaOp {
        WRITE("write"), READ("read"), WRITEDATA("writedata");

        final String label;

        RmaOp(String label) {
            this.label = label;
        }
    }
}
