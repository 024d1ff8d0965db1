package io.jofi.spi.util;

import static io.jofi.Fi.FI_ATOMIC;
import static io.jofi.Fi.FI_MSG;
import static io.jofi.Fi.FI_MULTI_RECV;
import static io.jofi.Fi.FI_READ;
import static io.jofi.Fi.FI_RECV;
import static io.jofi.Fi.FI_REMOTE_READ;
import static io.jofi.Fi.FI_REMOTE_WRITE;
import static io.jofi.Fi.FI_RMA;
import static io.jofi.Fi.FI_SEND;
import static io.jofi.Fi.FI_SOURCE;
import static io.jofi.Fi.FI_TAGGED;
import static io.jofi.Fi.FI_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.AddrFormat;
import io.jofi.AvType;
import io.jofi.ConnReq;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.ResourceMgmt;
import io.jofi.Threading;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every hint kind of libfabric's matching, matched and mismatched, and the merge rules. */
class InfoMatcherTest {

    private static final long ALL_CAPS = FI_MSG | FI_TAGGED | FI_RMA | FI_SEND | FI_RECV | FI_READ
            | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_MULTI_RECV | FI_SOURCE;
    private static final long MIB16 = 16L << 20;

    /** A tcp-like RDM offer with a value in every field the matcher looks at. */
    private static Info offered() {
        Info i = new Info().caps(ALL_CAPS).addrFormat(AddrFormat.SOCKADDR_IN);
        i.fabricAttr().name("127.0.0.0/8").provName("tcp").provVersion(Fi.version(1, 2))
                .apiVersion(Fi.version(1, 20));
        i.domainAttr().name("lo").threading(Threading.SAFE).controlProgress(Progress.AUTO)
                .dataProgress(Progress.AUTO).resourceMgmt(ResourceMgmt.ENABLED).avType(AvType.MAP)
                .mrMode(Fi.FI_MR_PROV_KEY).cqDataSize(8).cntrCnt(16).mrIovLimit(1)
                .caps(Fi.FI_LOCAL_COMM | Fi.FI_REMOTE_COMM).maxErrData(64).mrCnt(1024)
                .maxEpTxCtx(1).maxEpRxCtx(1);
        i.epAttr().type(EpType.RDM).protocol(6).protoVersion(1).maxMsgSize(MIB16)
                .maxOrderRawSize(64).maxOrderWarSize(64).maxOrderWawSize(64)
                .memTagFormat(0xFFFFL);
        i.txAttr().caps(ALL_CAPS).opFlags(Fi.FI_COMPLETION | Fi.FI_INJECT_COMPLETE)
                .msgOrder(Fi.FI_ORDER_SAS).compOrder(Fi.FI_ORDER_NONE).injectSize(64).size(1024)
                .iovLimit(4).rmaIovLimit(4);
        i.rxAttr().caps(ALL_CAPS).opFlags(Fi.FI_COMPLETION | Fi.FI_MULTI_RECV)
                .msgOrder(Fi.FI_ORDER_SAS).compOrder(Fi.FI_ORDER_NONE).totalBufferedRecv(4096)
                .size(1024).iovLimit(4);
        return i;
    }

    private static void assertMatch(Info offered, Info hints) {
        assertNull(InfoMatcher.mismatch(offered, hints));
    }

    private static void assertMismatch(Info offered, Info hints, String expected) {
        String m = InfoMatcher.mismatch(offered, hints);
        assertNotNull(m, "expected a mismatch naming " + expected);
        assertTrue(m.contains(expected), "message '" + m + "' should contain '" + expected + "'");
    }

    @Test
    void noHintsMatchEverything() {
        assertNull(InfoMatcher.mismatch(offered(), null));
        assertMatch(offered(), new Info());
    }

    @Test
    void providerName() {
        Info h = new Info();
        h.fabricAttr().provName("TCP");
        assertMatch(offered(), h);
        h.fabricAttr().provName("shm");
        assertMismatch(offered(), h, "prov_name shm not offered (tcp)");
    }

    @Test
    void endpointType() {
        Info h = new Info();
        h.epAttr().type(EpType.RDM);
        assertMatch(offered(), h);
        h.epAttr().type(EpType.MSG);
        assertEquals("ep_type FI_EP_MSG not offered (FI_EP_RDM)", InfoMatcher.mismatch(offered(), h));
    }

    @Test
    void capsMustBeASubset() {
        assertMatch(offered(), new Info().caps(FI_MSG | FI_TAGGED | FI_RMA | FI_READ | FI_WRITE));
        assertEquals("caps FI_ATOMIC not supported",
                InfoMatcher.mismatch(offered(), new Info().caps(FI_MSG | FI_ATOMIC)));
    }

    @Test
    void offeredCapsWithoutDirectionsMeanBothDirections() {
        Info o = offered().caps(FI_MSG);
        assertMatch(o, new Info().caps(FI_MSG | FI_SEND | FI_RECV));
        assertMismatch(o, new Info().caps(FI_MSG | FI_READ), "caps FI_READ not supported");
    }

    @Test
    void everyNeededModeBitMustBeInHints() {
        Info o = offered().mode(Fi.FI_CONTEXT);
        assertMismatch(o, new Info(), "mode FI_CONTEXT needed by the provider");
        assertMatch(o, new Info().mode(Fi.FI_CONTEXT | Fi.FI_CONTEXT2));
        assertNull(InfoMatcher.mismatch(o, null), "without hints every mode is accepted");
    }

    @Test
    void addressFormat() {
        assertMatch(offered(), new Info().addrFormat(AddrFormat.SOCKADDR_IN));
        assertMismatch(offered(), new Info().addrFormat(AddrFormat.SOCKADDR_IN6),
                "addr_format FI_SOCKADDR_IN6 not supported (FI_SOCKADDR_IN)");
        Info v6 = offered().addrFormat(AddrFormat.SOCKADDR_IN6);
        assertMatch(v6, new Info().addrFormat(AddrFormat.SOCKADDR_IN));
        assertMismatch(v6, new Info().addrFormat(AddrFormat.ADDR_STR), "addr_format FI_ADDR_STR");
    }

    @Test
    void fabricNameAndVersions() {
        Info h = new Info();
        h.fabricAttr().name("127.0.0.0/8");
        assertMatch(offered(), h);
        h.fabricAttr().name("10.0.0.0/8");
        assertMismatch(offered(), h, "fabric name 10.0.0.0/8 not offered (127.0.0.0/8)");
        h = new Info();
        h.fabricAttr().provVersion(Fi.version(1, 3));
        assertMismatch(offered(), h, "prov_version 1.3 newer than the provider's 1.2");
        h.fabricAttr().provVersion(Fi.version(1, 2)).apiVersion(Fi.version(1, 5));
        assertMismatch(offered(), h, "api_version 1.5 older");
        h.fabricAttr().apiVersion(Fi.version(1, 21));
        assertMatch(offered(), h);
    }

    @Test
    void domainName() {
        Info h = new Info();
        h.domainAttr().name("LO");
        assertMatch(offered(), h);
        h.domainAttr().name("eth0");
        assertMismatch(offered(), h, "domain name eth0 not offered (lo)");
    }

    @Test
    void threadingLevels() {
        Info safe = offered();
        Info h = new Info();
        h.domainAttr().threading(Threading.DOMAIN);
        assertMatch(safe, h);
        Info domainOnly = offered();
        domainOnly.domainAttr().threading(Threading.DOMAIN);
        h.domainAttr().threading(Threading.SAFE);
        assertMismatch(domainOnly, h, "threading FI_THREAD_SAFE not offered (FI_THREAD_DOMAIN)");
        h.domainAttr().threading(Threading.COMPLETION);
        assertMismatch(domainOnly, h, "threading FI_THREAD_COMPLETION");
        h.domainAttr().threading(Threading.UNSPEC);
        assertMatch(domainOnly, h);
    }

    @Test
    void progressLevels() {
        Info manual = offered();
        manual.domainAttr().dataProgress(Progress.MANUAL).controlProgress(Progress.MANUAL);
        Info h = new Info();
        h.domainAttr().dataProgress(Progress.MANUAL).controlProgress(Progress.MANUAL);
        assertMatch(manual, h);
        assertMatch(offered(), h);
        h.domainAttr().controlProgress(Progress.AUTO);
        assertMismatch(manual, h, "control_progress FI_PROGRESS_AUTO not offered (FI_PROGRESS_MANUAL)");
        h.domainAttr().controlProgress(Progress.UNSPEC).dataProgress(Progress.AUTO);
        assertMismatch(manual, h, "data_progress FI_PROGRESS_AUTO not offered (FI_PROGRESS_MANUAL)");
    }

    @Test
    void resourceManagementAndAvType() {
        Info disabled = offered();
        disabled.domainAttr().resourceMgmt(ResourceMgmt.DISABLED);
        Info h = new Info();
        h.domainAttr().resourceMgmt(ResourceMgmt.ENABLED);
        assertMismatch(disabled, h, "resource_mgmt FI_RM_ENABLED not offered (FI_RM_DISABLED)");
        assertMatch(offered(), h);
        h = new Info();
        h.domainAttr().avType(AvType.TABLE);
        assertMismatch(offered(), h, "av_type FI_AV_TABLE not offered (FI_AV_MAP)");
        h.domainAttr().avType(AvType.MAP);
        assertMatch(offered(), h);
    }

    @Test
    void cqDataSize() {
        Info h = new Info();
        h.domainAttr().cqDataSize(8);
        assertMatch(offered(), h);
        h.domainAttr().cqDataSize(16);
        assertMismatch(offered(), h, "cq_data_size 16 exceeds the provider's 8");
    }

    @Test
    void mrModeLocal() {
        Info local = offered();
        local.domainAttr().mrMode(Fi.FI_MR_LOCAL);
        assertMismatch(local, new Info(), "mr_mode FI_MR_LOCAL needed by the provider");
        Info h = new Info();
        h.domainAttr().mrMode(Fi.FI_MR_LOCAL);
        assertMatch(local, h);
        // API >= 1.5, as libfabric: the old FI_LOCAL_MR mode bit alone does not stand in for it.
        assertMismatch(local, new Info().mode(Fi.FI_LOCAL_MR), "mr_mode FI_MR_LOCAL");
        // ... but a provider still naming the FI_LOCAL_MR mode bit accepts FI_MR_LOCAL.
        Info oldStyle = offered().mode(Fi.FI_LOCAL_MR);
        assertMatch(oldStyle, h);
        assertMismatch(oldStyle, new Info(), "mode FI_LOCAL_MR needed by the provider");
    }

    @Test
    void mrModeRmaTargetBitsOnlyMatterForRmaTargets() {
        // The offer needs FI_MR_PROV_KEY: an application that is no RMA target need not know.
        assertMatch(offered(), new Info().caps(FI_MSG));
        assertMismatch(offered(), new Info().caps(FI_RMA), "mr_mode FI_MR_PROV_KEY needed by the provider");
        Info h = new Info().caps(FI_RMA);
        h.domainAttr().mrMode(Fi.FI_MR_PROV_KEY | Fi.FI_MR_LOCAL);
        assertMatch(offered(), h);
        assertMatch(offered(), new Info().caps(FI_RMA | FI_READ | FI_WRITE));
        h = new Info();
        h.domainAttr().mrMode(Fi.FI_MR_BASIC);
        assertMismatch(offered(), h, "mr_mode FI_MR_BASIC not supported");
    }

    @Test
    void domainCountsLimitsCapsAndMode() {
        Info h = new Info();
        h.domainAttr().cntrCnt(17);
        assertMismatch(offered(), h, "cntr_cnt 17 exceeds the provider's 16");
        h = new Info();
        h.domainAttr().mrIovLimit(2);
        assertMismatch(offered(), h, "mr_iov_limit 2 exceeds");
        h = new Info();
        h.domainAttr().maxErrData(65);
        assertMismatch(offered(), h, "max_err_data 65 exceeds");
        h = new Info();
        h.domainAttr().mrCnt(1025);
        assertMismatch(offered(), h, "mr_cnt 1025 exceeds");
        h = new Info();
        h.domainAttr().caps(Fi.FI_LOCAL_COMM);
        assertMatch(offered(), h);
        h.domainAttr().caps(Fi.FI_SHARED_AV);
        assertMismatch(offered(), h, "domain caps FI_SHARED_AV not supported");
        Info needsMode = offered();
        needsMode.domainAttr().mode(Fi.FI_RESTRICTED_COMP);
        assertMismatch(needsMode, new Info(), "domain mode FI_RESTRICTED_COMP needed");
    }

    @Test
    void endpointProtocolAndSizes() {
        Info h = new Info();
        h.epAttr().protocol(7);
        assertMismatch(offered(), h, "protocol 7 not offered (6)");
        h = new Info();
        h.epAttr().protocol(6).protoVersion(2);
        assertMismatch(offered(), h, "protocol_version 2 newer");
        h = new Info();
        h.epAttr().maxMsgSize(MIB16);
        assertMatch(offered(), h);
        h.epAttr().maxMsgSize(MIB16 + 1);
        assertMismatch(offered(), h, "max_msg_size 16777217 exceeds the provider's 16777216");
        h = new Info();
        h.epAttr().maxMsgSize(-1L); // SIZE_MAX: compared unsigned, never "small"
        assertMismatch(offered(), h, "max_msg_size 18446744073709551615 exceeds");
    }

    @Test
    void endpointContextCounts() {
        Info h = new Info();
        h.epAttr().txCtxCnt(1).rxCtxCnt(1);
        assertMatch(offered(), h);
        h.epAttr().txCtxCnt(2);
        assertMismatch(offered(), h, "tx_ctx_cnt 2 exceeds the provider's max_ep_tx_ctx 1");
        h.epAttr().txCtxCnt(1).rxCtxCnt(-1L);
        assertMismatch(offered(), h, "rx_ctx_cnt FI_SHARED_CONTEXT not supported");
    }

    @Test
    void orderingSizesOnlyWithRmaOrAtomics() {
        Info h = new Info().caps(FI_MSG);
        h.epAttr().maxOrderRawSize(128);
        assertMatch(offered(), h);
        h.caps(FI_RMA | FI_READ);
        assertMismatch(offered(), h, "max_order_raw_size 128 exceeds the provider's 64");
        h.epAttr().maxOrderRawSize(0).maxOrderWawSize(65);
        assertMismatch(offered(), h, "max_order_waw_size 65");
    }

    @Test
    void memTagFormatBits() {
        Info h = new Info().caps(FI_TAGGED);
        h.epAttr().memTagFormat(0xAAAAL);
        assertMatch(offered(), h);
        h.epAttr().memTagFormat(0x1FFFFL);
        assertMismatch(offered(), h, "mem_tag_format 0x1ffff needs 17 tag bits, the provider has 16");
        h.caps(FI_MSG);
        assertMatch(offered(), h);
    }

    @Test
    void rxAttributes() {
        Info h = new Info();
        h.rxAttr().caps(FI_MSG | FI_RECV | FI_SEND); // FI_SEND means nothing on the rx side
        assertMatch(offered(), h);
        h.rxAttr().caps(FI_ATOMIC);
        assertMismatch(offered(), h, "rx caps FI_ATOMIC not supported");
        Info needsMode = offered();
        needsMode.rxAttr().mode(Fi.FI_RX_CQ_DATA);
        assertMismatch(needsMode, new Info(), "rx mode FI_RX_CQ_DATA needed");
        assertMatch(needsMode, new Info().mode(Fi.FI_RX_CQ_DATA));
        h = new Info();
        h.rxAttr().opFlags(Fi.FI_MULTI_RECV);
        assertMatch(offered(), h);
        h.rxAttr().opFlags(Fi.FI_INJECT);
        assertMismatch(offered(), h, "rx op_flags FI_INJECT not supported");
        h = new Info();
        h.rxAttr().msgOrder(Fi.FI_ORDER_RAW);
        assertMismatch(offered(), h, "rx msg_order FI_ORDER_RAW not supported");
        h = new Info();
        h.rxAttr().compOrder(Fi.FI_ORDER_DATA);
        assertMismatch(offered(), h, "rx comp_order FI_ORDER_DATA not supported");
        h = new Info();
        h.rxAttr().totalBufferedRecv(8192);
        assertMismatch(offered(), h, "rx total_buffered_recv 8192 exceeds");
        h = new Info();
        h.rxAttr().size(2048);
        assertMismatch(offered(), h, "rx size 2048 exceeds the provider's 1024");
        h = new Info();
        h.rxAttr().iovLimit(5);
        assertMismatch(offered(), h, "rx iov_limit 5 exceeds the provider's 4");
    }

    @Test
    void txAttributes() {
        Info h = new Info();
        h.txAttr().caps(FI_MSG | FI_SEND | FI_MULTI_RECV); // FI_MULTI_RECV means nothing on tx
        assertMatch(offered(), h);
        h.txAttr().caps(FI_ATOMIC);
        assertMismatch(offered(), h, "tx caps FI_ATOMIC not supported");
        Info needsMode = offered();
        needsMode.txAttr().mode(Fi.FI_CONTEXT);
        assertMismatch(needsMode, new Info(), "tx mode FI_CONTEXT needed");
        h = new Info();
        h.txAttr().mode(Fi.FI_CONTEXT);
        assertMatch(needsMode, h);
        h = new Info();
        h.txAttr().opFlags(Fi.FI_DELIVERY_COMPLETE);
        assertMismatch(offered(), h, "tx op_flags FI_DELIVERY_COMPLETE not supported");
        h = new Info();
        h.txAttr().msgOrder(Fi.FI_ORDER_SAS);
        assertMatch(offered(), h);
        h.txAttr().msgOrder(Fi.FI_ORDER_WAW);
        assertMismatch(offered(), h, "tx msg_order FI_ORDER_WAW not supported");
        h = new Info();
        h.txAttr().compOrder(Fi.FI_ORDER_STRICT);
        assertMismatch(offered(), h, "tx comp_order");
        h = new Info();
        h.txAttr().injectSize(64);
        assertMatch(offered(), h);
        h.txAttr().injectSize(65);
        assertMismatch(offered(), h, "inject_size 65 exceeds the provider's 64");
        h = new Info();
        h.txAttr().size(1025);
        assertMismatch(offered(), h, "tx size 1025 exceeds");
        h = new Info();
        h.txAttr().iovLimit(8);
        assertMismatch(offered(), h, "tx iov_limit 8 exceeds");
        h = new Info();
        h.txAttr().rmaIovLimit(8);
        assertMismatch(offered(), h, "rma_iov_limit 8 exceeds");
    }

    @Test
    void theFirstUnmetHintIsReported() {
        Info h = new Info().caps(FI_ATOMIC);
        h.epAttr().type(EpType.MSG);
        h.txAttr().size(1 << 20);
        assertEquals("ep_type FI_EP_MSG not offered (FI_EP_RDM)", InfoMatcher.mismatch(offered(), h));
    }

    @Test
    void nullNestedHintsConstrainNothing() {
        Info h = new Info().epAttr(null).domainAttr(null).fabricAttr(null).txAttr(null).rxAttr(null);
        assertMatch(offered(), h);
        Info bare = new Info().caps(FI_MSG).epAttr(null).domainAttr(null).txAttr(null).rxAttr(null);
        Info h2 = new Info();
        h2.epAttr().type(EpType.RDM).maxMsgSize(1);
        assertMismatch(bare, h2, "max_msg_size 1 exceeds the provider's 0");
    }

    // ---------------------------------------------------------------------- merge

    @Test
    void mergeWithoutHintsIsADeepCopyWithAllCaps() {
        Info o = offered();
        Info r = InfoMatcher.merge(o, null);
        o.txAttr().opFlags(0);
        o.rxAttr().opFlags(0);
        assertEquals(o, r, "the offered info but its op flags");
        assertNotSame(o, r);
        assertNotSame(o.txAttr(), r.txAttr());
    }

    /**
     * The offered op flags are what an endpoint can apply, not defaults: the returned info carries
     * the hinted ones (ofi_alter_info), none without hints or without hinted tx/rx attributes.
     */
    @Test
    void mergedOpFlagsAreTheHintedOnesNeverTheOffered() {
        assertEquals(0, InfoMatcher.merge(offered(), null).txAttr().opFlags(), "tx, no hints");
        assertEquals(0, InfoMatcher.merge(offered(), null).rxAttr().opFlags(), "rx, no hints");
        Info bare = new Info().txAttr(null).rxAttr(null);
        assertEquals(0, InfoMatcher.merge(offered(), bare).txAttr().opFlags(), "tx, hints without tx_attr");
        assertEquals(0, InfoMatcher.merge(offered(), bare).rxAttr().opFlags(), "rx, hints without rx_attr");
        Info h = new Info();
        h.txAttr().opFlags(Fi.FI_INJECT_COMPLETE);
        assertMatch(offered(), h);
        assertEquals(Fi.FI_INJECT_COMPLETE, InfoMatcher.merge(offered(), h).txAttr().opFlags());
        assertEquals(0, InfoMatcher.merge(offered(), h).rxAttr().opFlags());
    }

    @Test
    void mergedCapsAreHintedPrimaryPlusOfferedSecondary() {
        Info r = InfoMatcher.merge(offered(), new Info().caps(FI_MSG));
        // FI_MSG asked; its directions come from the offer; secondary caps (MULTI_RECV, SOURCE)
        // are reported unasked; FI_TAGGED and FI_RMA were not asked, so they are not enabled.
        assertEquals(FI_MSG | FI_SEND | FI_RECV | FI_MULTI_RECV | FI_SOURCE, r.caps());
        assertEquals(FI_MSG | FI_SEND | FI_RECV | FI_MULTI_RECV | FI_SOURCE, r.txAttr().caps());
        assertEquals(FI_MSG | FI_SEND | FI_RECV | FI_MULTI_RECV | FI_SOURCE, r.rxAttr().caps());
        r = InfoMatcher.merge(offered(), new Info().caps(FI_TAGGED | FI_RECV));
        assertEquals(FI_TAGGED | FI_RECV | FI_MULTI_RECV | FI_SOURCE, r.caps());
    }

    @Test
    void mergeDropsRemoteAccessTheHintedMrModeCannotServe() {
        // No caps hinted, mr_mode 0: the offer needs FI_MR_PROV_KEY to be an RMA target.
        Info r = InfoMatcher.merge(offered(), new Info());
        assertEquals(ALL_CAPS & ~(FI_REMOTE_READ | FI_REMOTE_WRITE), r.caps());
        assertEquals(0, r.domainAttr().mrMode());
        Info h = new Info();
        h.domainAttr().mrMode(Fi.FI_MR_PROV_KEY);
        r = InfoMatcher.merge(offered(), h);
        assertEquals(ALL_CAPS, r.caps());
        assertEquals(Fi.FI_MR_PROV_KEY, r.domainAttr().mrMode());
    }

    @Test
    void mergeAppliesHintedLevelsAndSizes() {
        Info h = new Info();
        h.domainAttr().threading(Threading.DOMAIN).dataProgress(Progress.MANUAL)
                .controlProgress(Progress.MANUAL).avType(AvType.MAP);
        h.txAttr().size(64).injectSize(16).iovLimit(2).rmaIovLimit(1).opFlags(Fi.FI_COMPLETION);
        h.rxAttr().size(32).iovLimit(1).opFlags(Fi.FI_MULTI_RECV);
        h.epAttr().txCtxCnt(1);
        ConnReq handle = new ConnReq() {
        };
        h.handle(handle);
        Info o = offered();
        Info r = InfoMatcher.merge(o, h);
        assertEquals(Threading.DOMAIN, r.domainAttr().threading());
        assertEquals(Progress.MANUAL, r.domainAttr().dataProgress());
        assertEquals(Progress.MANUAL, r.domainAttr().controlProgress());
        assertEquals(64, r.txAttr().size());
        assertEquals(16, r.txAttr().injectSize());
        assertEquals(2, r.txAttr().iovLimit());
        assertEquals(1, r.txAttr().rmaIovLimit());
        assertEquals(Fi.FI_COMPLETION, r.txAttr().opFlags());
        assertEquals(32, r.rxAttr().size());
        assertEquals(1, r.rxAttr().iovLimit());
        assertEquals(Fi.FI_MULTI_RECV, r.rxAttr().opFlags());
        assertEquals(0, r.rxAttr().totalBufferedRecv());
        assertEquals(1, r.epAttr().txCtxCnt());
        assertEquals(MIB16, r.epAttr().maxMsgSize(), "not narrowed, as in libfabric");
        assertSame(handle, r.handle());
        assertEquals(offered(), o, "the offer is not modified");
    }

    @Test
    void mergeFillsNullNestedAttributes() {
        Info bare = new Info().caps(FI_MSG).epAttr(null).domainAttr(null).txAttr(null).rxAttr(null)
                .fabricAttr(null);
        Info r = InfoMatcher.merge(bare, new Info().caps(FI_MSG));
        assertNotNull(r.epAttr());
        assertNotNull(r.domainAttr());
        assertNotNull(r.txAttr());
        assertNotNull(r.rxAttr());
        assertNotNull(r.fabricAttr());
    }

    // ---------------------------------------------------------------------- filter

    @Test
    void filterKeepsMatchesInOfferedOrderAsMergedCopies() throws FabricException {
        Info msg = offered();
        msg.epAttr().type(EpType.MSG);
        Info rdm = offered();
        List<Info> r = InfoMatcher.filter(List.of(msg, rdm), new Info().caps(FI_MSG), "tcp");
        assertEquals(2, r.size());
        assertEquals(EpType.MSG, r.get(0).epAttr().type());
        assertEquals(EpType.RDM, r.get(1).epAttr().type());
        assertNotSame(msg, r.get(0));
        Info h = new Info();
        h.epAttr().type(EpType.RDM);
        r = InfoMatcher.filter(List.of(msg, rdm), h, "tcp");
        assertEquals(1, r.size());
        assertEquals(EpType.RDM, r.get(0).epAttr().type());
        assertEquals(2, InfoMatcher.filter(List.of(msg, rdm), null, "tcp").size());
    }

    @Test
    void filterReportsTheOfferThatGotFurthest() {
        Info msg = offered();
        msg.epAttr().type(EpType.MSG);
        Info h = new Info().caps(FI_ATOMIC);
        h.epAttr().type(EpType.RDM);
        FabricException e = assertThrows(FabricException.class,
                () -> InfoMatcher.filter(List.of(msg, offered()), h, "tcp"));
        assertEquals(Errno.ENODATA, e.errno());
        assertEquals("tcp: caps FI_ATOMIC not supported", e.getMessage());
    }

    @Test
    void filterListsTheOfferedEndpointTypes() {
        Info msg = offered();
        msg.epAttr().type(EpType.MSG);
        Info h = new Info();
        h.epAttr().type(EpType.DGRAM);
        FabricException e = assertThrows(FabricException.class,
                () -> InfoMatcher.filter(List.of(msg, offered()), h, "tcp"));
        assertEquals("tcp: ep_type FI_EP_DGRAM not offered (FI_EP_MSG, FI_EP_RDM)", e.getMessage());
    }

    @Test
    void filterOfNothing() {
        FabricException e = assertThrows(FabricException.class,
                () -> InfoMatcher.filter(List.of(), new Info(), "shm"));
        assertEquals(Errno.ENODATA, e.errno());
        assertEquals("shm: offers no interfaces", e.getMessage());
    }
}
