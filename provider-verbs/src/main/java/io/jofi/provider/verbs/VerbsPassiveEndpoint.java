package io.jofi.provider.verbs;

import com.sun.jna.Native;
import io.jofi.Addresses;
import io.jofi.ConnReq;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.FidClass;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.provider.verbs.binding.NativeBlock;
import io.jofi.provider.verbs.binding.RdmaCmIdDescriptor;
import io.jofi.provider.verbs.binding.Rdmacm;
import io.jofi.provider.verbs.binding.VerbsConstants;
import io.jofi.spi.util.AbstractFid;
import io.jofi.spi.util.UtilEventQueue;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code fi_passive_ep} of the verbs provider: an rdma_cm id bound to the info's source
 * address and listening. Each {@code RDMA_CM_EVENT_CONNECT_REQUEST} becomes an
 * {@code FI_CONNREQ} on the bound EQ (R14) with the peer's connection data (unframed,
 * {@link ConnData}) and a {@link VerbsConnReq} handle for {@code endpoint}/{@code reject}.
 */
final class VerbsPassiveEndpoint extends AbstractFid implements PassiveEndpoint, CmHandler {
    private final VerbsFabric fabric;
    private final Info info;
    /** Guarded by this. */
    private UtilEventQueue eq;
    /** Guarded by this. */
    private long id;
    /** Connect requests not yet taken (guarded by this). */
    private final List<VerbsConnReq> pending = new ArrayList<>();

    VerbsPassiveEndpoint(VerbsFabric fabric, Info info, Object context) {
        super(FidClass.PASSIVE_ENDPOINT, context);
        this.fabric = fabric;
        this.info = info.copy();
        this.info.handle(null);
    }

    VerbsFabric fabric() {
        return fabric;
    }

    /**
     * {@code fi_pep_bind}: the EQ that receives {@code FI_CONNREQ}.
     *
     * @throws FabricException {@code EINVAL} for a foreign EQ or a second bind
     */
    @Override
    public synchronized void bind(EventQueue queue, long flags) throws FabricException {
        ensureOpen("bind");
        if (!(queue instanceof UtilEventQueue q)) {
            throw new FabricException(Errno.EINVAL, "bind: " + queue + " is not an event queue of this provider");
        }
        if (eq != null) {
            throw new FabricException(Errno.EINVAL, "bind: an event queue is bound already");
        }
        q.retain();
        eq = q;
    }

    /**
     * {@code fi_listen}: {@code rdma_bind_addr} to {@code info.srcAddr()} (port 0 → an
     * ephemeral port; none → every address) and {@code rdma_listen}.
     *
     * @throws FabricException {@code ENOEQ} without a bound EQ; {@code EINVAL} when listening
     *         already; {@code EADDRNOTAVAIL}/{@code EADDRINUSE} when the address cannot be bound
     */
    @Override
    public synchronized void listen() throws FabricException {
        ensureOpen("listen");
        if (eq == null) {
            throw new FabricException(Errno.ENOEQ, "listen: bind an event queue first (FI_CONNREQ goes there)");
        }
        if (id != 0) {
            throw new FabricException(Errno.EINVAL, "listen: already listening");
        }
        CmChannel cm = fabric.cm();
        long newId = cm.createId(this);
        try (NativeBlock sa = new NativeBlock(128)) {
            byte[] src = info.srcAddr() != null ? info.srcAddr()
                    : Addresses.toSockaddr(new java.net.InetSocketAddress(0));
            Sockaddrs.put(src, sa);
            if (Rdmacm.rdma_bind_addr(newId, sa.address()) != 0) {
                int errno = Native.getLastError();
                cm.destroyId(newId);
                throw new FabricException(errno == Errno.EADDRINUSE ? Errno.EADDRINUSE : Errno.EADDRNOTAVAIL,
                        "listen: rdma_bind_addr(" + Addresses.toString(src) + ") failed (errno " + errno + ")");
            }
            if (Rdmacm.rdma_listen(newId, 128) != 0) {
                int errno = Native.getLastError();
                cm.destroyId(newId);
                throw new FabricException(Errno.EIO, "listen: rdma_listen failed (errno " + errno + ")");
            }
        }
        id = newId;
    }

    /** A connect request: {@code FI_CONNREQ} with the peer's data; any other event on a listening id is ignored. */
    @Override
    public void onCmEvent(long cmId, long token, int event, int status, byte[] privateData) {
        if (event != VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST) {
            return;
        }
        UtilEventQueue q;
        VerbsConnReq req = new VerbsConnReq(this, cmId);
        synchronized (this) {
            q = eq;
            if (q == null || state() != OPEN) {
                Rdmacm.rdma_reject(cmId, 0, (byte) 0);
                Rdmacm.rdma_destroy_id(cmId);
                return;
            }
            pending.add(req);
        }
        byte[] data = ConnData.read(java.nio.ByteBuffer.wrap(privateData), 0, privateData.length);
        Info connInfo = info.copy();
        connInfo.handle(req);
        connInfo.destAddr(Sockaddrs.get(cmId + RdmaCmIdDescriptor.ROUTE_ADDR_DST_ADDR));
        byte[] local = Sockaddrs.get(cmId + RdmaCmIdDescriptor.ROUTE_ADDR_SRC_ADDR);
        if (local != null) {
            connInfo.srcAddr(local);
        }
        if (q.post(Fi.FI_CONNREQ, this, context(), 0, connInfo, data, data.length) < 0 && take(req)) {
            // not taken by a concurrent teardown (which rejects and destroys it itself)
            Rdmacm.rdma_reject(cmId, 0, (byte) 0);
            Rdmacm.rdma_destroy_id(cmId);
        }
    }

    /** An endpoint or a reject takes the request; false when it was taken already. */
    synchronized boolean take(VerbsConnReq req) {
        if (req.taken) {
            return false;
        }
        req.taken = true;
        pending.remove(req);
        return true;
    }

    /**
     * {@code fi_getname}: the address it listens on (after {@code listen}), else its source address.
     *
     * @throws FabricException {@code EADDRNOTAVAIL} when it has neither
     */
    @Override
    public synchronized byte[] getName() throws FabricException {
        ensureOpen("getName");
        if (id != 0) {
            byte[] sa = Sockaddrs.get(id + RdmaCmIdDescriptor.ROUTE_ADDR_SRC_ADDR);
            if (sa != null) {
                return sa;
            }
        }
        if (info.srcAddr() == null) {
            throw new FabricException(Errno.EADDRNOTAVAIL, "getName: not listening and no source address");
        }
        return info.srcAddr().clone();
    }

    /**
     * {@code fi_reject}: {@code rdma_reject} with {@code param} framed (the active side reads
     * {@code ECONNREFUSED} with it in {@code errData}).
     *
     * @throws FabricException {@code EINVAL} for a handle that is not a pending request of this
     *         endpoint or data longer than {@link ConnData#MAX_DATA}
     */
    @Override
    public void reject(ConnReq handle, byte[] param) throws FabricException {
        ensureOpen("reject");
        if (!(handle instanceof VerbsConnReq req) || req.pep != this) {
            throw new FabricException(Errno.EINVAL, "reject: the handle is not a connection request of this passive endpoint");
        }
        if (param != null && param.length > ConnData.MAX_DATA) {
            throw new FabricException(Errno.EINVAL, "reject: " + param.length + " bytes of data exceed the "
                    + ConnData.MAX_DATA + " bytes rdma_cm carries");
        }
        if (!take(req)) {
            throw new FabricException(Errno.EINVAL, "reject: the connection request was accepted or rejected already");
        }
        try (NativeBlock data = new NativeBlock(ConnData.MAX_FRAME)) {
            int n = ConnData.write(param, data.view(), 0);
            Rdmacm.rdma_reject(req.id, data.address(), (byte) n);
        }
        Rdmacm.rdma_destroy_id(req.id);
    }

    private void teardown(boolean closing) {
        List<VerbsConnReq> left;
        long listening;
        UtilEventQueue q;
        synchronized (this) {
            left = new ArrayList<>(pending);
            pending.clear();
            // taken under this, as take() reads it: an endpoint accepting one of these requests
            // concurrently must see it taken, or the id would be destroyed twice
            for (VerbsConnReq r : left) {
                r.taken = true;
            }
            listening = id;
            id = 0;
            q = eq;
            eq = null;
        }
        for (VerbsConnReq r : left) {
            Rdmacm.rdma_reject(r.id, 0, (byte) 0);
            Rdmacm.rdma_destroy_id(r.id);
        }
        if (listening != 0) {
            try {
                fabric.cm().destroyId(listening);
            } catch (FabricException gone) {
                Rdmacm.rdma_destroy_id(listening);
            }
        }
        if (q != null) {
            if (closing) {
                q.removeEventsOf(this); // R15: on departure the EQ stays readable
            }
            q.release();
        }
    }

    @Override
    protected void onClose() {
        teardown(true);
    }

    @Override
    protected void onDeparture() {
        teardown(false);
    }
}
