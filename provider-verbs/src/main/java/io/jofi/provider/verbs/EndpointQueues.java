package io.jofi.provider.verbs;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.provider.verbs.binding.Ibv;
import io.jofi.provider.verbs.binding.IbvQpDescriptor;
import io.jofi.provider.verbs.binding.IbvQpInitAttrDescriptor;
import io.jofi.provider.verbs.binding.NativeBlock;
import io.jofi.provider.verbs.binding.RdmaCmIdDescriptor;
import io.jofi.provider.verbs.binding.Rdmacm;
import io.jofi.provider.verbs.binding.VerbsConstants;
import io.jofi.spi.util.stats.StatsCounter;
import java.nio.ByteBuffer;

/**
 * Owns the native queues of one verbs endpoint from {@code enable} to teardown: its CQ (on the
 * domain's completion channel) and the {@link CqPoller} that drains it, the receive and send
 * chains staged for its queue pair, the {@link LocalBuffers} (registration cache and bounce
 * slots), and the RC queue pairs created on rdma_cm ids over that CQ — watched for asynchronous errors ({@link AsyncEvents})
 * until they are destroyed. {@link #close} frees everything in the order verbs needs once the
 * queue pairs are gone.
 *
 * <p>Not thread-safe: the owning endpoint's monitor serialises it.
 */
final class EndpointQueues implements AutoCloseable {
    /** Work requests one chain holds at most before it is posted. */
    private static final int MAX_CHAIN = 32;

    private final VerbsDomain domain;
    private final int txDepth;
    private final int rxDepth;
    private long cq;
    private CqPoller poller;
    private RecvChain recvChain;
    private SendChain sendChain;
    private LocalBuffers buffers;
    private NativeBlock qpAttr;
    /** The inline size of the queue pair created last (what the device granted). */
    private int maxInline;

    /**
     * Creates the queues: the CQ with room for {@code txDepth + rxDepth} completions and the
     * receive and send chains of one queue pair made later. {@code emptyPolls} counts the polls
     * that found nothing.
     *
     * @throws FabricException {@code ENOMEM} when the device refuses
     */
    EndpointQueues(VerbsDomain domain, int txDepth, int rxDepth, int batch, StatsCounter emptyPolls)
            throws FabricException {
        this.domain = domain;
        this.txDepth = txDepth;
        this.rxDepth = rxDepth;
        try {
            cq = Ibv.ibv_create_cq(domain.deviceContext(), txDepth + rxDepth, 0, domain.compChannel(), 0);
            if (cq == 0) {
                throw new FabricException(Errno.ENOMEM, "enable: ibv_create_cq(" + (txDepth + rxDepth)
                        + ") failed (errno " + Native.getLastError() + ")");
            }
            poller = new CqPoller(cq, batch, emptyPolls);
            recvChain = new RecvChain(Math.min(MAX_CHAIN, rxDepth), TransmitSlots.IOV_LIMIT);
            sendChain = new SendChain(Math.min(MAX_CHAIN, txDepth), TransmitSlots.IOV_LIMIT);
            buffers = new LocalBuffers(domain.pd(), txDepth + rxDepth); // bounce slots: transmit, then receive
            qpAttr = new NativeBlock(IbvQpInitAttrDescriptor.SIZE);
        } catch (FabricException e) {
            close();
            throw e;
        } catch (RuntimeException e) {
            close();
            throw new FabricException(Errno.ENOMEM, "enable: " + e.getMessage(), e);
        }
    }

    /** The send chain of the endpoint's queue pair. */
    SendChain sendChain() {
        return sendChain;
    }

    RecvChain recvChain() {
        return recvChain;
    }

    LocalBuffers buffers() {
        return buffers;
    }

    /** Whether rdma_cm id {@code id} lives on this domain's device (an address may route through another). */
    boolean onThisDevice(long id) {
        return new Pointer(id).getLong(RdmaCmIdDescriptor.VERBS) == domain.deviceContext();
    }

    /**
     * Creates the RC queue pair of rdma_cm id {@code id} on these queues ({@code rdma_create_qp}):
     * sends and receives complete in the CQ; every transmit slot may be posted on it. {@code inline} bytes of inline data are asked for; a
     * device that cannot inline as much gets none ({@link #maxInline}: inject then uses bounce
     * slots). Watched for asynchronous errors by {@code listener}.
     *
     * @return the {@code struct ibv_qp *}, or 0 when the device refused
     */
    long createQueuePair(long id, int inline, AsyncEvents.Listener listener) {
        ByteBuffer v = qpAttr.view();
        qpAttr.clear();
        v.putLong(IbvQpInitAttrDescriptor.SEND_CQ, cq);
        v.putLong(IbvQpInitAttrDescriptor.RECV_CQ, cq);
        v.putInt(IbvQpInitAttrDescriptor.CAP_MAX_SEND_WR, txDepth);
        v.putInt(IbvQpInitAttrDescriptor.CAP_MAX_SEND_SGE, Math.min(TransmitSlots.IOV_LIMIT, domain.port().maxSge()));
        v.putInt(IbvQpInitAttrDescriptor.CAP_MAX_RECV_WR, rxDepth);
        v.putInt(IbvQpInitAttrDescriptor.CAP_MAX_RECV_SGE,
                Math.min(TransmitSlots.IOV_LIMIT, domain.port().maxSge()));
        v.putInt(IbvQpInitAttrDescriptor.CAP_MAX_INLINE_DATA, inline);
        v.putInt(IbvQpInitAttrDescriptor.QP_TYPE, VerbsConstants.IBV_QPT_RC);
        v.putInt(IbvQpInitAttrDescriptor.SQ_SIG_ALL, 0);
        if (Rdmacm.rdma_create_qp(id, domain.pd(), qpAttr.address()) != 0) {
            if (inline == 0) {
                return 0;
            }
            v.putInt(IbvQpInitAttrDescriptor.CAP_MAX_INLINE_DATA, 0);
            if (Rdmacm.rdma_create_qp(id, domain.pd(), qpAttr.address()) != 0) {
                return 0;
            }
        }
        maxInline = v.getInt(IbvQpInitAttrDescriptor.CAP_MAX_INLINE_DATA);
        long qp = new Pointer(id).getLong(RdmaCmIdDescriptor.QP);
        domain.provider().asyncEvents().watch(qp, listener);
        return qp;
    }

    /** The inline size the device granted the queue pair created last. */
    int maxInline() {
        return maxInline;
    }

    /** The queue pair number of {@code qp}: what its work completions carry ({@code qp_num}). */
    static int qpNum(long qp) {
        return new Pointer(qp).getInt(IbvQpDescriptor.QP_NUM);
    }

    /**
     * Destroys the queue pair {@code qp} of id {@code id} through its channel
     * ({@link CmChannel#destroyQueuePair}); no more async events for it.
     */
    void destroyQueuePair(CmChannel cm, long id, long qp) {
        domain.provider().asyncEvents().unwatch(qp);
        cm.destroyQueuePair(id);
    }

    /** Drains the CQ into {@code consumer}, at most {@code max} completions; returns how many. */
    int poll(CqPoller.Consumer consumer, int max) {
        return poller == null ? 0 : poller.drain(domain.ops(), consumer, max);
    }

    /** Arms the CQ for the completion channel. */
    void arm() {
        if (poller != null) {
            poller.requestNotify(domain.ops());
        }
    }

    /**
     * Frees the CQ and the staging memory (the queue pairs on it must be destroyed first).
     * Idempotent.
     */
    @Override
    public void close() {
        if (cq != 0) {
            Ibv.ibv_destroy_cq(cq);
            cq = 0;
        }
        if (poller != null) {
            poller.close();
            poller = null;
        }
        if (sendChain != null) {
            sendChain.close();
            sendChain = null;
        }
        if (recvChain != null) {
            recvChain.close();
            recvChain = null;
        }
        if (buffers != null) {
            buffers.close();
            buffers = null;
        }
        if (qpAttr != null) {
            qpAttr.close();
            qpAttr = null;
        }
    }
}
