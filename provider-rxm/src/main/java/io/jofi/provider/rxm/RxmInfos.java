package io.jofi.provider.rxm;

import io.jofi.Addresses;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;

/**
 * The translations between the rxm layer's RDM infos and its core's MSG infos, as libfabric's
 * {@code rxm_info_to_core} and {@code rxm_info_to_rxm}: the hints a core is asked with, the RDM info
 * made of a core's MSG info, the sizes of the endpoints over that core, and the MSG info an RDM
 * endpoint opens its connections with.
 */
final class RxmInfos {
    /** The layer's name, the second part of {@code tcp;ofi_rxm}. */
    static final String NAME = "ofi_rxm";
    /** What rxm offers in software over any core: tags, atomics, multi-receive, directed receives, senders. */
    static final long ADDED_CAPS = Fi.FI_TAGGED | Fi.FI_ATOMIC | Fi.FI_MULTI_RECV | Fi.FI_DIRECTED_RECV | Fi.FI_SOURCE
            | Fi.FI_SOURCE_ERR;
    /** Caps that only the receive side has. */
    private static final long RX_ONLY_CAPS = Fi.FI_RECV | Fi.FI_SOURCE | Fi.FI_SOURCE_ERR | Fi.FI_DIRECTED_RECV
            | Fi.FI_MULTI_RECV | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE;
    /** Caps of the receive side. */
    private static final long RX_CAPS = RX_ONLY_CAPS | Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_ATOMIC
            | Fi.FI_RMA_EVENT;
    /** Caps a core's MSG endpoint is not asked for: rxm answers them itself. */
    private static final long NOT_FROM_CORE = Fi.FI_SOURCE_ERR | Fi.FI_DIRECTED_RECV | Fi.FI_MULTI_RECV;
    /** What rxm needs of a core's MSG endpoint: messages, and RMA reads for its rendezvous. */
    static final long NEEDED_CORE_CAPS = Fi.FI_MSG | Fi.FI_SEND | Fi.FI_RECV | Fi.FI_RMA | Fi.FI_READ
            | Fi.FI_REMOTE_READ;
    /** tcp's unexpected-message limits, which rxm over a socket core keeps. */
    private static final long SOCKET_CORE_UNEXPECTED_BYTES = 4 << 20;
    private static final int SOCKET_CORE_UNEXPECTED_MESSAGES = 256;

    private RxmInfos() {
    }

    /** {@code core;ofi_rxm}. */
    static String pairing(String core) {
        return core + ";" + NAME;
    }

    /**
     * The hints a core is asked with for the application's {@code hints}: MSG endpoints, in the
     * hinted address format, of the hinted domain and fabric; with the registration modes rxm
     * handles itself (it registers its own buffers and keeps their keys and addresses) and
     * {@code FI_RX_CQ_DATA} (rxm posts the receives a peer's remote CQ data consumes), as
     * libfabric's {@code rxm_info_to_core} asks.
     *
     * @throws FabricException {@code ENODATA} when the hints ask for another endpoint type than RDM
     */
    static Info coreHints(Info hints) throws FabricException {
        Info core = new Info().mode(Fi.FI_RX_CQ_DATA);
        core.epAttr().type(EpType.MSG);
        core.rxAttr().mode(Fi.FI_RX_CQ_DATA);
        core.domainAttr().mrMode(Fi.FI_MR_LOCAL | Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_ALLOCATED | Fi.FI_MR_PROV_KEY);
        if (hints == null) {
            return core;
        }
        EpType t = hints.epAttr() == null ? EpType.UNSPEC : hints.epAttr().type();
        if (t != EpType.UNSPEC && t != EpType.RDM) {
            throw new FabricException(Errno.ENODATA, "ep_type " + t + " not offered (" + NAME + " offers RDM)");
        }
        core.addrFormat(hints.addrFormat());
        if (hints.domainAttr() != null && hints.domainAttr().name() != null) {
            core.domainAttr().name(hints.domainAttr().name());
        }
        if (hints.fabricAttr() != null && hints.fabricAttr().name() != null) {
            core.fabricAttr().name(hints.fabricAttr().name());
        }
        return core;
    }

    /** Whether rxm can work over a core's MSG info: it offers {@link #NEEDED_CORE_CAPS}. */
    static boolean layerable(Info msg) {
        return (msg.caps() & NEEDED_CORE_CAPS) == NEEDED_CORE_CAPS;
    }

    /**
     * The op flags rxm offers as defaults (hints' {@code tx_attr/rx_attr->op_flags}), its own: the
     * core's, as getInfo returned them to rxm, are only what rxm's hints asked. Every completion
     * level, inject, completion; multi-receive buffers.
     */
    static final long TX_OP_FLAGS = Fi.FI_INJECT | Fi.FI_INJECT_COMPLETE | Fi.FI_TRANSMIT_COMPLETE
            | Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION;
    static final long RX_OP_FLAGS = Fi.FI_MULTI_RECV | Fi.FI_COMPLETION;

    /**
     * The RDM info over one MSG info of {@code core}: what rxm passes through of the core's caps
     * (messages, RMA) and what it adds ({@link #ADDED_CAPS}), its inject size (the eager limit),
     * iov limit and queue sizes, protocol {@code FI_PROTO_RXM}; the core's addresses, domain,
     * fabric and limits otherwise.
     */
    static Info rdm(Info msg, String core, RxmSettings settings) {
        long caps = msg.caps() & (RxmEndpoint.CAPS | Fi.FI_LOCAL_COMM | Fi.FI_REMOTE_COMM) | ADDED_CAPS;
        Info info = msg.copy().caps(caps);
        info.handle(null);
        info.epAttr().type(EpType.RDM).protocol(Fi.FI_PROTO_RXM);
        info.txAttr().caps(caps & ~RX_ONLY_CAPS).opFlags(TX_OP_FLAGS).injectSize(settings.eagerLimit())
                .iovLimit(RxmWireDescriptor.IOV_LIMIT).size(settings.transmitOps());
        // no FI_RX_CQ_DATA: a peer's write with data takes one of rxm's own receive buffers
        info.rxAttr().caps(caps & RX_CAPS).opFlags(RX_OP_FLAGS).mode(0).iovLimit(RxmWireDescriptor.IOV_LIMIT)
                .size(settings.receiveQueueSize());
        info.fabricAttr().provName(pairing(core));
        return info;
    }

    /**
     * Whether {@code msg} is a socket core's (tcp's) MSG info: one socket carries a connection's
     * data and its end, and its endpoints take tagged receives (verbs' do neither).
     */
    static boolean socketCore(Info msg) {
        String prov = msg.fabricAttr() == null ? null : msg.fabricAttr().provName();
        return prov != null && prov.startsWith("tcp");
    }

    /**
     * The sizes of RDM endpoints over a MSG info of {@code core}. Over verbs: the core's queue
     * depth for transmits and receives, half of it posted as receive buffers on each connection
     * (iWARP has no RNR retry: a burst that finds no buffer ends the connection), messages up to
     * 8 × the eager limit in segments and credit flow control offered, as libfabric's
     * {@code verbs;ofi_rxm}. Over a socket core (tcp): rxm's defaults with the core's queue depth
     * and tcp's unexpected-message limits (4 MiB, 256 messages), no segments, no credits.
     */
    static RxmSettings settings(String core, Info msg) {
        RxmSettings d = RxmSettings.defaults();
        int depth = msg.txAttr() != null && msg.txAttr().size() > 0
                ? (int) Math.min(Integer.MAX_VALUE, msg.txAttr().size()) : d.transmitOps();
        String asked = System.getProperty(AV_REMOVE_CLEANUP_PROPERTY); // a JVM's own choice first
        boolean cleanup = avRemoveCleanup(asked != null ? asked : System.getenv(AV_REMOVE_CLEANUP_VARIABLE));
        if (core.toLowerCase(Locale.ROOT).startsWith("verbs")) {
            return new RxmSettings(d.eagerLimit(), Math.max(d.receiveBuffers(), depth / 2), depth, depth,
                    d.maxUnexpectedBytes(), d.maxUnexpectedMessages(), d.msgCqSize(), d.rendezvousByWrite(),
                    8L * d.eagerLimit(), true, cleanup);
        }
        return new RxmSettings(d.eagerLimit(), d.receiveBuffers(), depth, depth, SOCKET_CORE_UNEXPECTED_BYTES,
                SOCKET_CORE_UNEXPECTED_MESSAGES, d.msgCqSize(), d.rendezvousByWrite(), d.eagerLimit(), false, cleanup);
    }

    /** libfabric's variable (no provider prefix) for {@link RxmSettings#avRemoveCleanup}. */
    static final String AV_REMOVE_CLEANUP_VARIABLE = "FI_AV_REMOVE_CLEANUP";

    /** The system property that sets {@link RxmSettings#avRemoveCleanup} before the variable does. */
    static final String AV_REMOVE_CLEANUP_PROPERTY = "jofi.rxm.avRemoveCleanup";

    /**
     * {@code value} read as libfabric's {@code fi_param_get_bool} reads a variable: {@code 1},
     * {@code true}, {@code yes}, {@code on} are true, {@code 0}, {@code false}, {@code no}, {@code off}
     * false (any case); unset or anything else is the default, false (the latter with a warning that
     * names it: a provider cannot refuse to start for its environment).
     */
    static boolean avRemoveCleanup(String value) {
        if (value == null || value.isBlank()) {
            return false;
        }
        switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "1", "true", "yes", "on":
                return true;
            case "0", "false", "no", "off":
                return false;
            default:
                System.getLogger(RxmInfos.class.getName()).log(System.Logger.Level.WARNING,
                        AV_REMOVE_CLEANUP_VARIABLE + "='" + value + "' is not a boolean: ignored (false)");
                return false;
        }
    }

    /**
     * The MSG info the RDM endpoint of {@code rdm} opens its connections with: the RDM info's
     * addresses, domain and progress, as an MSG endpoint of the core whose MSG info is
     * {@code coreMsg} (its protocol, inject size, registration mode and receive mode; rxm adds the
     * caps it needs underneath, RMA reads for its rendezvous among them).
     */
    static Info msgInfo(Info rdm, Info coreMsg) {
        Info m = rdm.copy();
        m.handle(null);
        m.epAttr().type(EpType.MSG).protocol(coreMsg.epAttr().protocol());
        m.fabricAttr().provName(coreMsg.fabricAttr().provName());
        m.caps(rdm.caps() & coreMsg.caps() & ~NOT_FROM_CORE);
        m.txAttr().injectSize(coreMsg.txAttr().injectSize());
        m.domainAttr().mrMode(coreMsg.domainAttr().mrMode());
        // where the core has immediate data, a peer's write with data consumes one of the receives
        // rxm posts: with rxm's credits such a write takes one of the peer's credits
        m.rxAttr().mode(coreMsg.rxAttr().mode());
        if (m.srcAddr() == null) {
            m.srcAddr(coreMsg.srcAddr() != null ? coreMsg.srcAddr()
                    : Addresses.toSockaddr(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
        }
        return m;
    }
}
