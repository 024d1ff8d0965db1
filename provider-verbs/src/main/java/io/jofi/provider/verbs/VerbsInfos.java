package io.jofi.provider.verbs;

import io.jofi.AddrFormat;
import io.jofi.Addresses;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.ResourceMgmt;
import io.jofi.Threading;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The infos the verbs provider offers: one MSG info per active port (RDM over them is
 * {@code verbs;ofi_rxm}'s), named as libfabric's
 * verbs provider names them (domain = the device, e.g. {@code rxe0}; fabric = {@code IB-<device>}
 * here, as the subnet prefix is not read yet). Addresses are IPv4 sockaddrs, which rdma_cm
 * resolves to the device; the source address is the device's first IPv4 address
 * ({@link DeviceAddresses}) unless {@code FI_SOURCE} names one (not a loopback address:
 * {@code ENODATA}, as no device is reachable there).
 */
final class VerbsInfos {
    /** The largest message (RC: 2^31 bytes); the info advertises the port's max_msg_sz when smaller (soft-RoCE: 8 MiB). */
    static final long MAX_MSG_SIZE = 1L << 30;
    /**
     * Connection data ({@code FI_OPT_CM_DATA_SIZE}, {@code max_err_data}): rdma_cm carries 56
     * bytes of private data on an RC connect (IB CM REQ) minus our 1-byte length.
     */
    static final int CM_DATA_SIZE = 55;
    /** Remote CQ data: the 32-bit immediate data of InfiniBand and RoCE (iWARP has none). */
    static final int IMM_DATA_SIZE = 4;
    /** Caps of an MSG endpoint. */
    static final long CAPS = Fi.FI_MSG | Fi.FI_RMA | Fi.FI_ATOMIC | Fi.FI_SEND | Fi.FI_RECV | Fi.FI_READ
            | Fi.FI_WRITE | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE | Fi.FI_LOCAL_COMM | Fi.FI_REMOTE_COMM;

    /**
     * The transmit op flags offered as hints' defaults ({@code tx_attr.op_flags}): inject, every
     * completion level (an RC send or write completes when the target's device acknowledged it, which
     * meets FI_TRANSMIT_COMPLETE and FI_DELIVERY_COMPLETE), completion. Getinfo returns the hinted
     * ones only (InfoMatcher.merge); the endpoint applies them.
     */
    static final long TX_OP_FLAGS = Fi.FI_INJECT | Fi.FI_INJECT_COMPLETE | Fi.FI_TRANSMIT_COMPLETE
            | Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION;
    /** The receive op flags offered: completion (no multi-receive buffers on MSG endpoints). */
    static final long RX_OP_FLAGS = Fi.FI_COMPLETION;

    private VerbsInfos() {
    }

    static List<Info> offer(List<ActivePort> ports, String node, String service, long flags, int queueSize,
                            int inlineSize) throws FabricException {
        boolean source = (flags & Fi.FI_SOURCE) != 0;
        byte[] named = null;
        if (node != null || service != null) {
            named = Addresses.toSockaddr(resolve(node, service, source));
        }
        if (source && Sockaddrs.isLoopback(named)) {
            // fi_getinfo(3): FI_SOURCE names a local address to bind; none of the devices has
            // it, and an endpoint bound there would be unreachable (rdma_cm routes nothing
            // through lo to a RoCE or iWARP device), as libfabric's verbs provider also refuses
            throw new FabricException(Errno.ENODATA, "verbs: " + node + " is a loopback address, which no RDMA device"
                    + " has; bind to a device's address (e.g. " + (ports.isEmpty() ? "its IPv4 address"
                    : firstAddress(ports)) + ")");
        }
        List<Info> out = new ArrayList<>();
        for (ActivePort p : ports) {
            long caps = p.atomics() ? CAPS : CAPS & ~Fi.FI_ATOMIC;
            int depth = Math.min(queueSize, p.maxQpWr());
            Info info = new Info().caps(caps).addrFormat(AddrFormat.SOCKADDR_IN);
            info.epAttr().type(EpType.MSG).protocol(p.iwarp() ? Fi.FI_PROTO_IWARP : Fi.FI_PROTO_RDMA_CM_IB_RC)
                    .maxMsgSize(Math.min(MAX_MSG_SIZE, p.maxMsgSize())).txCtxCnt(1).rxCtxCnt(1);
            info.txAttr().caps(caps & ~(Fi.FI_RECV | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE)).opFlags(TX_OP_FLAGS)
                    .injectSize(inlineSize)
                    .size(depth).iovLimit(Math.min(4, p.maxSge())).rmaIovLimit(1).msgOrder(Fi.FI_ORDER_SAS);
            // FI_RX_CQ_DATA (fi_getinfo(3)): a write with immediate data consumes a posted receive
            // at the target, as on every verbs device; VerbsProvider waives it for hints that ask
            // for no remote CQ data, as libfabric's verbs provider does. iWARP (RFC 5040/5041)
            // has no immediate data at all: cq_data_size 0 there, and so no such mode.
            info.rxAttr().mode(p.iwarp() ? 0 : Fi.FI_RX_CQ_DATA)
                    .caps(Fi.FI_MSG | Fi.FI_RECV | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE).opFlags(RX_OP_FLAGS).size(depth)
                    .iovLimit(Math.min(4, p.maxSge())).msgOrder(Fi.FI_ORDER_SAS);
            // resource_mgmt (fi_domain(3)): InfiniBand and RoCE retry a send that finds no
            // receive posted (RNR, rnr_retry 7 = for ever), so nothing is overrun: ENABLED.
            // iWARP has no RNR: such a send ends the connection (a DDP terminate), which is
            // what DISABLED allows — the application posts its receives before the peer sends.
            info.domainAttr().resourceMgmt(p.iwarp() ? ResourceMgmt.DISABLED : ResourceMgmt.ENABLED);
            info.domainAttr().name(p.device()).threading(Threading.SAFE)
                    .controlProgress(Progress.AUTO).dataProgress(Progress.AUTO)
                    .cqDataSize(p.iwarp() ? 0 : IMM_DATA_SIZE).epCnt(1024).cqCnt(256).txCtxCnt(1024).rxCtxCnt(1024)
                    .maxEpTxCtx(1).maxEpRxCtx(1).mrIovLimit(1).maxErrData(CM_DATA_SIZE)
                    .mrMode(Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_ALLOCATED | Fi.FI_MR_PROV_KEY);
            info.fabricAttr().name("IB-" + p.device());
            List<byte[]> local = DeviceAddresses.of(p.device());
            if (named != null && source) {
                info.srcAddr(named);
            } else if (!local.isEmpty()) {
                info.srcAddr(local.get(0)); // listen/bind where peers can reach this device
            }
            if (named != null && !source) {
                info.destAddr(named);
            }
            out.add(info);
        }
        return out;
    }

    private static String firstAddress(List<ActivePort> ports) {
        for (ActivePort p : ports) {
            List<byte[]> local = DeviceAddresses.of(p.device());
            if (!local.isEmpty()) {
                return Addresses.toString(local.get(0)) + " of " + p.device();
            }
        }
        return "the IPv4 address of " + ports.get(0).device();
    }

    private static InetSocketAddress resolve(String node, String service, boolean source) throws FabricException {
        int port = 0;
        if (service != null) {
            try {
                port = Integer.parseInt(service.trim());
            } catch (NumberFormatException e) {
                throw new FabricException(Errno.EINVAL, "verbs: service '" + service + "' is not a port number");
            }
            if (port < 0 || port > 65535) {
                throw new FabricException(Errno.EINVAL, "verbs: port " + port + " is outside 0..65535");
            }
        }
        try {
            InetAddress a = node == null ? InetAddress.getByName(source ? "0.0.0.0" : "127.0.0.1")
                    : InetAddress.getByName(node);
            if (a.getAddress().length != 4) {
                throw new FabricException(Errno.ENODATA, "verbs: only IPv4 addresses are offered, not " + node);
            }
            return new InetSocketAddress(a, port);
        } catch (UnknownHostException e) {
            throw new FabricException(Errno.ENODATA, "verbs: cannot resolve host '" + node + "'");
        }
    }
}
