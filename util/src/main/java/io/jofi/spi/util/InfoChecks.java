package io.jofi.spi.util;

import io.jofi.AddrFormat;
import io.jofi.AvType;
import io.jofi.DomainAttr;
import io.jofi.EpAttr;
import io.jofi.EpType;
import io.jofi.FabricAttr;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.ResourceMgmt;
import io.jofi.RxAttr;
import io.jofi.Threading;
import io.jofi.TxAttr;

/**
 * The checks of {@link InfoMatcher}, one section at a time in libfabric's order (provider name,
 * endpoint type, caps, mode, address format, fabric, domain, endpoint, receive and transmit
 * attributes): each answers {@code null} when the offered info meets the hints of its section,
 * else a short sentence naming the first hint it does not meet. Stateless.
 */
final class InfoChecks {
    /** Receive-side caps that mean nothing in tx_attr caps (libfabric ignores them there). */
    private static final long RX_ONLY_CAPS = Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE | Fi.FI_RECV
            | Fi.FI_DIRECTED_RECV | Fi.FI_VARIABLE_MSG | Fi.FI_MULTI_RECV | Fi.FI_SOURCE
            | Fi.FI_RMA_EVENT | Fi.FI_SOURCE_ERR;
    /** Transmit-side caps that mean nothing in rx_attr caps (libfabric ignores them there). */
    private static final long TX_ONLY_CAPS =
            Fi.FI_READ | Fi.FI_WRITE | Fi.FI_SEND | Fi.FI_FENCE | Fi.FI_TRIGGER;
    /** {@code FI_SHARED_CONTEXT} ({@code SIZE_MAX}) in {@code tx_ctx_cnt}/{@code rx_ctx_cnt}. */
    private static final long FI_SHARED_CONTEXT = -1L;

    // Check sections in libfabric's order; filter() reports the info that got furthest.
    static final int PROV_NAME = 0;
    static final int EP_TYPE = 1;
    static final int CAPS = 2;
    static final int MODE = 3;
    static final int ADDR_FORMAT = 4;
    static final int FABRIC = 5;
    static final int DOMAIN = 6;
    static final int ENDPOINT = 7;
    static final int RX = 8;
    static final int TX = 9;
    static final int SECTIONS = 10;

    private InfoChecks() {
    }

    static String check(int section, Info o, Info h) {
        switch (section) {
            case PROV_NAME:
                return checkProvName(o, h);
            case EP_TYPE:
                return checkEpType(o, h);
            case CAPS: {
                long missing = h.caps() & ~InfoMatcher.expandDirections(o.caps());
                return missing == 0 ? null : "caps " + Fi.capsToString(missing) + " not supported";
            }
            case MODE: {
                long needed = o.mode();
                if (h.domainAttr() != null && (h.domainAttr().mrMode() & Fi.FI_MR_LOCAL) != 0) {
                    needed &= ~Fi.FI_LOCAL_MR;
                }
                long missing = needed & ~h.mode();
                return missing == 0 ? null : "mode " + Fi.modeToString(missing)
                        + " needed by the provider but not in hints.mode()";
            }
            case ADDR_FORMAT:
                return validAddrFormat(o.addrFormat(), h.addrFormat()) ? null
                        : "addr_format " + h.addrFormat().fiName() + " not supported ("
                        + o.addrFormat().fiName() + ")";
            case FABRIC:
                return h.fabricAttr() == null ? null : checkFabric(InfoMatcher.fabric(o), h.fabricAttr());
            case DOMAIN:
                return h.domainAttr() == null ? null : checkDomain(o, h);
            case ENDPOINT:
                return h.epAttr() == null ? null : checkEndpoint(o, h);
            case RX:
                return h.rxAttr() == null ? null : checkRx(InfoMatcher.rx(o), h.rxAttr(), h.mode());
            case TX:
                return h.txAttr() == null ? null : checkTx(InfoMatcher.tx(o), h.txAttr(), h.mode());
            default:
                throw new IllegalArgumentException("no check section " + section);
        }
    }

    /** The registry routes by provider name; a provider asked anyway still refuses a foreign one. */
    private static String checkProvName(Info o, Info h) {
        FabricAttr hf = h.fabricAttr();
        String want = hf == null ? null : hf.provName();
        String have = InfoMatcher.fabric(o).provName();
        if (want == null || have == null || want.equalsIgnoreCase(have)) {
            return null;
        }
        return "prov_name " + want + " not offered (" + have + ")";
    }

    private static String checkEpType(Info o, Info h) {
        if (h.epAttr() == null) {
            return null;
        }
        EpType want = h.epAttr().type();
        EpType have = InfoMatcher.ep(o).type();
        if (want == EpType.UNSPEC || have == EpType.UNSPEC || want == have) {
            return null;
        }
        return "ep_type " + want.fiName() + " not offered (" + have.fiName() + ")";
    }

    private static String checkFabric(FabricAttr of, FabricAttr hf) {
        if (hf.name() != null && !hf.name().equalsIgnoreCase(of.name())) {
            return "fabric name " + hf.name() + " not offered (" + of.name() + ")";
        }
        if (Integer.compareUnsigned(hf.provVersion(), of.provVersion()) > 0) {
            return "prov_version " + version(hf.provVersion()) + " newer than the provider's "
                    + version(of.provVersion());
        }
        if (hf.apiVersion() != 0 && of.apiVersion() != 0
                && Integer.compareUnsigned(hf.apiVersion(), of.apiVersion()) < 0) {
            return "api_version " + version(hf.apiVersion()) + " older than the provider's "
                    + version(of.apiVersion());
        }
        return null;
    }

    private static String checkDomain(Info o, Info h) {
        DomainAttr od = InfoMatcher.domain(o);
        DomainAttr hd = h.domainAttr();
        if (hd.name() != null && !hd.name().equalsIgnoreCase(od.name())) {
            return "domain name " + hd.name() + " not offered (" + od.name() + ")";
        }
        if (threadLevel(hd.threading()) < threadLevel(od.threading())) {
            return "threading " + hd.threading().fiName() + " not offered ("
                    + od.threading().fiName() + ")";
        }
        if (progressLevel(hd.controlProgress()) < progressLevel(od.controlProgress())) {
            return "control_progress " + hd.controlProgress().fiName() + " not offered ("
                    + od.controlProgress().fiName() + ")";
        }
        if (progressLevel(hd.dataProgress()) < progressLevel(od.dataProgress())) {
            return "data_progress " + hd.dataProgress().fiName() + " not offered ("
                    + od.dataProgress().fiName() + ")";
        }
        if (resourceLevel(hd.resourceMgmt()) < resourceLevel(od.resourceMgmt())) {
            return "resource_mgmt " + hd.resourceMgmt().fiName() + " not offered ("
                    + od.resourceMgmt().fiName() + ")";
        }
        if (hd.avType() != AvType.UNSPEC && od.avType() != AvType.UNSPEC
                && hd.avType() != od.avType()) {
            return "av_type " + hd.avType().fiName() + " not offered (" + od.avType().fiName() + ")";
        }
        String m = tooLarge("cq_data_size", hd.cqDataSize(), od.cqDataSize());
        if (m != null) {
            return m;
        }
        m = checkMrMode(od.mrMode(), hd.mrMode(), h.caps(), h.mode());
        if (m != null) {
            return m;
        }
        m = tooLarge("cntr_cnt", hd.cntrCnt(), od.cntrCnt());
        if (m != null) {
            return m;
        }
        m = tooLarge("mr_iov_limit", hd.mrIovLimit(), od.mrIovLimit());
        if (m != null) {
            return m;
        }
        long missing = hd.caps() & ~od.caps();
        if (missing != 0) {
            return "domain caps " + Fi.capsToString(missing) + " not supported";
        }
        missing = od.mode() & ~hd.mode();
        if (missing != 0) {
            return "domain mode " + Fi.modeToString(missing)
                    + " needed by the provider but not in hints.domainAttr().mode()";
        }
        m = tooLarge("max_err_data", hd.maxErrData(), od.maxErrData());
        if (m != null) {
            return m;
        }
        return tooLarge("mr_cnt", hd.mrCnt(), od.mrCnt());
    }

    /** libfabric's {@code ofi_check_mr_mode} for API 1.5 and later. */
    private static String checkMrMode(long provMode, long userMode, long userCaps, long userInfoMode) {
        if ((provMode & Fi.FI_MR_LOCAL) != 0 && (userInfoMode & Fi.FI_LOCAL_MR) == 0
                && (userMode & Fi.FI_MR_LOCAL) == 0) {
            return "mr_mode FI_MR_LOCAL needed by the provider but not in hints.domainAttr().mrMode()";
        }
        if ((userMode & Fi.FI_MR_BASIC) != 0) {
            if ((userMode & ~Fi.FI_MR_BASIC) != 0 || (provMode & Fi.FI_MR_BASIC) == 0) {
                return "mr_mode " + Fi.mrModeToString(userMode) + " not supported ("
                        + Fi.mrModeToString(provMode) + ")";
            }
            return null;
        }
        if ((userMode & Fi.FI_MR_SCALABLE) != 0) {
            if ((userMode & ~Fi.FI_MR_SCALABLE) != 0 || (provMode & Fi.FI_MR_SCALABLE) == 0) {
                return "mr_mode " + Fi.mrModeToString(userMode) + " not supported ("
                        + Fi.mrModeToString(provMode) + ")";
            }
            return null;
        }
        long missing = InfoMatcher.capMrMode(userCaps, provMode) & ~userMode;
        return missing == 0 ? null : "mr_mode " + Fi.mrModeToString(missing)
                + " needed by the provider but not in hints.domainAttr().mrMode()";
    }

    private static String checkEndpoint(Info o, Info h) {
        EpAttr oe = InfoMatcher.ep(o);
        EpAttr he = h.epAttr();
        DomainAttr od = InfoMatcher.domain(o);
        if (he.protocol() != 0 && he.protocol() != oe.protocol()) {
            return "protocol " + he.protocol() + " not offered (" + oe.protocol() + ")";
        }
        if (he.protoVersion() != 0 && Integer.compareUnsigned(he.protoVersion(), oe.protoVersion()) > 0) {
            return "protocol_version " + Integer.toUnsignedString(he.protoVersion())
                    + " newer than the provider's " + Integer.toUnsignedString(oe.protoVersion());
        }
        String m = tooLarge("max_msg_size", he.maxMsgSize(), oe.maxMsgSize());
        if (m != null) {
            return m;
        }
        m = checkCtxCnt("tx", he.txCtxCnt(), od.maxEpTxCtx(), od.maxEpStxCtx());
        if (m != null) {
            return m;
        }
        m = checkCtxCnt("rx", he.rxCtxCnt(), od.maxEpRxCtx(), od.maxEpSrxCtx());
        if (m != null) {
            return m;
        }
        if ((h.caps() & (Fi.FI_RMA | Fi.FI_ATOMIC)) != 0) {
            m = tooLarge("max_order_raw_size", he.maxOrderRawSize(), oe.maxOrderRawSize());
            if (m == null) {
                m = tooLarge("max_order_war_size", he.maxOrderWarSize(), oe.maxOrderWarSize());
            }
            if (m == null) {
                m = tooLarge("max_order_waw_size", he.maxOrderWawSize(), oe.maxOrderWawSize());
            }
            if (m != null) {
                return m;
            }
        }
        // Tag bits matter when tagged messaging is asked for (or every cap is, with caps 0).
        if (he.memTagFormat() != 0 && (h.caps() == 0 || (h.caps() & Fi.FI_TAGGED) != 0)) {
            int want = 64 - Long.numberOfLeadingZeros(he.memTagFormat());
            int have = 64 - Long.numberOfLeadingZeros(oe.memTagFormat());
            if (want > have) {
                return "mem_tag_format 0x" + Long.toHexString(he.memTagFormat()) + " needs " + want
                        + " tag bits, the provider has " + have;
            }
        }
        return null;
    }

    private static String checkCtxCnt(String side, long want, long max, long maxShared) {
        if (Long.compareUnsigned(want, max) <= 0) {
            return null;
        }
        if (want == FI_SHARED_CONTEXT) {
            return maxShared != 0 ? null : side + "_ctx_cnt FI_SHARED_CONTEXT not supported";
        }
        return side + "_ctx_cnt " + Long.toUnsignedString(want) + " exceeds the provider's max_ep_"
                + side + "_ctx " + Long.toUnsignedString(max);
    }

    private static String checkRx(RxAttr or, RxAttr hr, long infoMode) {
        long missing = (hr.caps() & ~TX_ONLY_CAPS) & ~InfoMatcher.expandDirections(or.caps());
        if (missing != 0) {
            return "rx caps " + Fi.capsToString(missing) + " not supported";
        }
        long mode = hr.mode() != 0 ? hr.mode() : infoMode;
        missing = or.mode() & ~mode;
        if (missing != 0) {
            return "rx mode " + Fi.modeToString(missing) + " needed by the provider but not in hints";
        }
        missing = hr.opFlags() & ~or.opFlags();
        if (missing != 0) {
            return "rx op_flags " + Fi.opFlagsToString(missing) + " not supported";
        }
        missing = hr.msgOrder() & ~or.msgOrder();
        if (missing != 0) {
            return "rx msg_order " + Fi.orderToString(missing) + " not supported";
        }
        missing = hr.compOrder() & ~or.compOrder();
        if (missing != 0) {
            return "rx comp_order " + Fi.orderToString(missing) + " not supported";
        }
        String m = tooLarge("rx total_buffered_recv", hr.totalBufferedRecv(), or.totalBufferedRecv());
        if (m == null) {
            m = tooLarge("rx size", hr.size(), or.size());
        }
        if (m == null) {
            m = tooLarge("rx iov_limit", hr.iovLimit(), or.iovLimit());
        }
        return m;
    }

    private static String checkTx(TxAttr ot, TxAttr ht, long infoMode) {
        long missing = (ht.caps() & ~RX_ONLY_CAPS) & ~InfoMatcher.expandDirections(ot.caps());
        if (missing != 0) {
            return "tx caps " + Fi.capsToString(missing) + " not supported";
        }
        long mode = ht.mode() != 0 ? ht.mode() : infoMode;
        missing = ot.mode() & ~mode;
        if (missing != 0) {
            return "tx mode " + Fi.modeToString(missing) + " needed by the provider but not in hints";
        }
        missing = ht.opFlags() & ~ot.opFlags();
        if (missing != 0) {
            return "tx op_flags " + Fi.opFlagsToString(missing) + " not supported";
        }
        missing = ht.msgOrder() & ~ot.msgOrder();
        if (missing != 0) {
            return "tx msg_order " + Fi.orderToString(missing) + " not supported";
        }
        missing = ht.compOrder() & ~ot.compOrder();
        if (missing != 0) {
            return "tx comp_order " + Fi.orderToString(missing) + " not supported";
        }
        String m = tooLarge("inject_size", ht.injectSize(), ot.injectSize());
        if (m == null) {
            m = tooLarge("tx size", ht.size(), ot.size());
        }
        if (m == null) {
            m = tooLarge("tx iov_limit", ht.iovLimit(), ot.iovLimit());
        }
        if (m == null) {
            m = tooLarge("rma_iov_limit", ht.rmaIovLimit(), ot.rmaIovLimit());
        }
        return m;
    }

    /** {@code size_t} comparison: a hinted size above the offered one is not met. */
    private static String tooLarge(String field, long want, long have) {
        if (Long.compareUnsigned(want, have) <= 0) {
            return null;
        }
        return field + " " + Long.toUnsignedString(want) + " exceeds the provider's "
                + Long.toUnsignedString(have);
    }

    /** libfabric's address-format compatibility: a sockaddr provider takes narrower families. */
    private static boolean validAddrFormat(AddrFormat prov, AddrFormat user) {
        if (user == AddrFormat.UNSPEC || prov == AddrFormat.UNSPEC) {
            return true;
        }
        switch (prov) {
            case SOCKADDR_IN:
            case SOCKADDR_IN6:
            case SOCKADDR_IB:
                // FI_SOCKADDR_IN (2) < IN6 (3) < IB (4): each takes the ones below it.
                return user.fiValue() <= prov.fiValue();
            default:
                return prov == user;
        }
    }

    /** Threading from the most parallel (SAFE) to UNSPEC; a hint may not be more parallel. */
    private static int threadLevel(Threading t) {
        switch (t) {
            case SAFE:
                return 1;
            case FID:
                return 2;
            case ENDPOINT:
                return 3;
            case COMPLETION:
                return 4;
            case DOMAIN:
                return 5;
            default:
                return 6;
        }
    }

    /** Progress from the most automatic (AUTO) to UNSPEC. */
    private static int progressLevel(Progress p) {
        switch (p) {
            case AUTO:
                return 1;
            case MANUAL:
                return 2;
            default:
                return 3;
        }
    }

    /** Resource management from ENABLED to UNSPEC. */
    private static int resourceLevel(ResourceMgmt rm) {
        switch (rm) {
            case ENABLED:
                return 1;
            case DISABLED:
                return 2;
            default:
                return 3;
        }
    }

    private static String version(int v) {
        return Fi.versionMajor(v) + "." + Fi.versionMinor(v);
    }
}
