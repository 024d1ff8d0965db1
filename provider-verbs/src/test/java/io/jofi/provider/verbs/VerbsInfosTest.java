package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.ResourceMgmt;
import io.jofi.spi.util.InfoMatcher;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The infos an active port offers meet the hints applications (and the conformance kit) give:
 * a bare provider name, {@code FI_MSG} on MSG endpoints, RMA with the mr_mode bits verbs needs;
 * {@code FI_RX_CQ_DATA} needed only by hints that ask for remote CQ data (as in libfabric's
 * verbs provider), and advertised with the device's limits either way.
 * The RDM infos are the {@code ofi_rxm} layer's over them ({@code verbs;ofi_rxm}, {@link InventedPorts}).
 * Uses an invented port, so it runs without a device.
 */
class VerbsInfosTest {
    private static final ActivePort PORT = new ActivePort("rxe0", 1, false, true, 16384, 32, 65536, 1L << 31, 16, true);

    /** What getInfo answers for {@code hints}: verbs's MSG infos, then verbs;ofi_rxm's RDM infos over them. */
    private static List<Info> match(Info hints) throws FabricException {
        return InventedPorts.registry(PORT).getInfo(null, null, 0, hints);
    }

    /** Every info of the port: verbs's and verbs;ofi_rxm's. */
    private static List<Info> offered(ActivePort port) throws FabricException {
        return InventedPorts.registry(port).getInfo(null, null, 0, null);
    }

    @Test
    void aBareProviderNameMatches() throws FabricException {
        Info hints = new Info();
        hints.fabricAttr().provName("verbs");
        assertFalse(match(hints).isEmpty());
    }

    @Test
    void msgOnMsgEndpointsMatches() throws FabricException {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.MSG);
        hints.fabricAttr().provName("verbs");
        List<Info> infos = match(hints);
        assertFalse(infos.isEmpty());
        assertEquals("rxe0", infos.get(0).domainAttr().name());
    }

    @Test
    void rmaMatchesWithTheMrModeVerbsNeeds() throws FabricException {
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_RMA);
        hints.epAttr().type(EpType.MSG);
        hints.domainAttr().mrMode(Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_ALLOCATED | Fi.FI_MR_PROV_KEY);
        assertFalse(match(hints).isEmpty());
    }

    /**
     * iWARP has no immediate data and no RNR retry: its infos offer no remote CQ data
     * (cq_data_size 0, so no FI_RX_CQ_DATA mode either) and resource_mgmt DISABLED, and hints
     * that ask for CQ data or for resource management find none of them. RMA is offered on MSG
     * and RDM endpoints; atomics only on RDM (rxm's, executed in software: siw has no atomics).
     */
    @Test
    void iwarpOffersNoCqDataAndNoResourceManagement() throws FabricException {
        ActivePort siw = new ActivePort("siw0", 1, true, true, 16384, 6, 65536, 1L << 31, 16, false);
        List<Info> offered = offered(siw);
        assertFalse(offered.isEmpty());
        for (Info i : offered) {
            assertEquals(0, i.domainAttr().cqDataSize(), i.epAttr().type() + ": cq_data_size");
            assertEquals(0, i.rxAttr().mode() & Fi.FI_RX_CQ_DATA, i.epAttr().type() + ": FI_RX_CQ_DATA");
            assertEquals(ResourceMgmt.DISABLED, i.domainAttr().resourceMgmt(), i.epAttr().type() + ": resource_mgmt");
            assertEquals(Fi.FI_RMA, i.caps() & Fi.FI_RMA, i.epAttr().type() + " endpoints offer RMA on iWARP");
            if (i.epAttr().type() == EpType.RDM) {
                assertEquals(Fi.FI_RMA | Fi.FI_ATOMIC, i.txAttr().caps() & (Fi.FI_RMA | Fi.FI_ATOMIC),
                        "tx_attr: RDM RMA, and rxm's software atomics where the device has none");
            } else {
                assertEquals(0, i.caps() & Fi.FI_ATOMIC, "no MSG atomics where atomic_cap is NONE");
            }
        }
        assertEquals(Fi.FI_PROTO_IWARP, offered.get(0).epAttr().protocol());
        Info wantsData = new Info().caps(Fi.FI_MSG);
        wantsData.domainAttr().cqDataSize(4);
        FabricException noData = assertThrows(FabricException.class,
                () -> InfoMatcher.filter(offered, VerbsProvider.waiveRxCqData(wantsData), "verbs"));
        assertEquals(Errno.ENODATA, noData.errno(), "cq_data_size 4 asked of an iWARP device: " + noData.getMessage());
        Info wantsRm = new Info().caps(Fi.FI_MSG);
        wantsRm.domainAttr().resourceMgmt(ResourceMgmt.ENABLED);
        FabricException noRm = assertThrows(FabricException.class,
                () -> InfoMatcher.filter(offered, VerbsProvider.waiveRxCqData(wantsRm), "verbs"));
        assertEquals(Errno.ENODATA, noRm.errno(), "resource_mgmt ENABLED asked of an iWARP device: " + noRm.getMessage());
        for (Info i : offered(PORT)) {
            assertEquals(VerbsInfos.IMM_DATA_SIZE, i.domainAttr().cqDataSize(), "RoCE: 32-bit immediate data");
            assertEquals(ResourceMgmt.ENABLED, i.domainAttr().resourceMgmt(), "RoCE: RNR retry");
        }
    }

    private static Info rmaHints() {
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_RMA);
        hints.epAttr().type(EpType.MSG);
        hints.fabricAttr().provName("verbs");
        hints.domainAttr().mrMode(Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_ALLOCATED | Fi.FI_MR_PROV_KEY);
        return hints;
    }

    /** fi_getinfo(3): hints asking for remote CQ data without accepting FI_RX_CQ_DATA find nothing. */
    @Test
    void remoteCqDataNeedsTheRxCqDataMode() throws FabricException {
        Info hints = rmaHints();
        hints.domainAttr().cqDataSize(4);
        FabricException e = assertThrows(FabricException.class, () -> match(hints));
        assertEquals(Errno.ENODATA, e.errno());
        assertTrue(e.getMessage().contains("FI_RX_CQ_DATA"), e.getMessage());
        hints.mode(Fi.FI_RX_CQ_DATA);
        assertFalse(match(hints).isEmpty(), "with FI_RX_CQ_DATA accepted");
    }

    /** Hints without remote CQ data match, and the infos still say FI_RX_CQ_DATA; the hints are not changed. */
    @Test
    void theModeIsWaivedWithoutRemoteCqDataButAdvertised() throws FabricException {
        Info hints = rmaHints();
        List<Info> infos = match(hints);
        assertFalse(infos.isEmpty());
        assertEquals(Fi.FI_RX_CQ_DATA, infos.get(0).rxAttr().mode() & Fi.FI_RX_CQ_DATA, "rx_attr.mode");
        assertEquals(0, hints.mode(), "the caller's hints are left as they were");
    }

    /**
     * MSG endpoints offer the transmit completion levels as op flags (an RC send or write completes
     * when the target's device acknowledged it, which meets FI_TRANSMIT_COMPLETE and
     * FI_DELIVERY_COMPLETE): hints asking one in tx_attr.op_flags (fabtests' {@code -U}, fi_bw -e msg
     * -U) find the MSG info, and get back what they asked, never the offered set.
     */
    @Test
    void msgHintsWithTransmitOpFlagsMatchAndGetThemBack() throws FabricException {
        for (long level : new long[] {Fi.FI_INJECT_COMPLETE, Fi.FI_TRANSMIT_COMPLETE, Fi.FI_DELIVERY_COMPLETE,
            Fi.FI_INJECT}) {
            Info hints = new Info().caps(Fi.FI_MSG);
            hints.epAttr().type(EpType.MSG);
            hints.txAttr().opFlags(level | Fi.FI_COMPLETION);
            List<Info> infos = match(hints);
            assertFalse(infos.isEmpty(), Fi.opFlagsToString(level));
            assertEquals(EpType.MSG, infos.get(0).epAttr().type());
            assertEquals(level | Fi.FI_COMPLETION, infos.get(0).txAttr().opFlags(), Fi.opFlagsToString(level));
        }
        Info unasked = new Info().caps(Fi.FI_MSG);
        unasked.epAttr().type(EpType.MSG);
        assertEquals(0, match(unasked).get(0).txAttr().opFlags(), "unasked op flags are not returned");
        Info multiRecv = new Info().caps(Fi.FI_MSG);
        multiRecv.epAttr().type(EpType.MSG);
        multiRecv.rxAttr().opFlags(Fi.FI_MULTI_RECV);
        FabricException e = assertThrows(FabricException.class, () -> match(multiRecv));
        assertEquals(Errno.ENODATA, e.errno(), "MSG endpoints take no multi-receive buffers: " + e.getMessage());
    }

    /** The device's limits: 4 bytes of CQ data (imm_data), the port's max_msg_sz, 55 bytes of connection data. */
    @Test
    void theDeviceLimitsAreAdvertised() throws FabricException {
        ActivePort small = new ActivePort("rxe0", 1, false, true, 16384, 32, 65536, 8L << 20, 16, true);
        Info i = VerbsInfos.offer(List.of(small), null, null, 0, 256, 64).get(0);
        assertEquals(4, i.domainAttr().cqDataSize(), "cq_data_size: verbs' 32-bit imm_data");
        assertEquals(8L << 20, i.epAttr().maxMsgSize(), "max_msg_size: the port's max_msg_sz");
        assertEquals(ConnData.MAX_DATA, VerbsInfos.CM_DATA_SIZE, "FI_OPT_CM_DATA_SIZE: 56 bytes of private data less the length byte");
        assertEquals(VerbsInfos.CM_DATA_SIZE, i.domainAttr().maxErrData(), "max_err_data: the reject data");
    }

    /**
     * RDM hints find the RDM info (messages with FI_SOURCE/FI_SOURCE_ERR over rxm-style RC
     * connections, the MSG side's address format and limits); hints without a type still get
     * MSG first.
     */
    @Test
    void rdmHintsFindTheRdmInfo() throws FabricException {
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_SOURCE | Fi.FI_SOURCE_ERR);
        hints.epAttr().type(EpType.RDM);
        List<Info> infos = match(hints);
        assertEquals(1, infos.size());
        Info rdm = infos.get(0);
        assertEquals(EpType.RDM, rdm.epAttr().type());
        assertEquals(Fi.FI_PROTO_RXM, rdm.epAttr().protocol());
        assertEquals(Fi.FI_SOURCE_ERR, rdm.caps() & Fi.FI_SOURCE_ERR, "FI_SOURCE_ERR: R10 with the raw name");
        Info everything = new Info().caps(Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_MULTI_RECV | Fi.FI_DIRECTED_RECV);
        everything.epAttr().type(EpType.RDM);
        long rxm = Fi.FI_TAGGED | Fi.FI_MULTI_RECV | Fi.FI_DIRECTED_RECV;
        assertEquals(rxm, match(everything).get(0).caps() & rxm, "the rxm layer's tagged messages, FI_MULTI_RECV"
                + " and directed receives");
        assertEquals(16384, rdm.txAttr().injectSize(), "inject size: rxm's eager limit");
        assertEquals(io.jofi.AddrFormat.SOCKADDR_IN, rdm.addrFormat(), "the listener's sockaddr");
        assertEquals(4, rdm.domainAttr().cqDataSize());
        assertTrue(rdm.domainAttr().maxErrData() >= Sockaddrs.IN6, "max_err_data holds FI_SOURCE_ERR's raw name");
        Info any = new Info();
        any.fabricAttr().provName("verbs");
        assertEquals(EpType.MSG, match(any).get(0).epAttr().type(), "MSG stays the first choice");
    }

    private static Info rdmRmaHints(long caps) {
        Info hints = new Info().caps(caps);
        hints.epAttr().type(EpType.RDM);
        hints.domainAttr().mrMode(Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_ALLOCATED | Fi.FI_MR_PROV_KEY);
        return hints;
    }

    /**
     * RDM endpoints offer RMA (the kit's RMA suite asks for these caps) with one RMA iov; a
     * writeData takes one of the rxm layer's own receive buffers at the target, not the
     * application's, so the RDM info needs no FI_RX_CQ_DATA mode: hints asking for remote CQ
     * data find it without that mode.
     */
    @Test
    void rdmOffersRmaWithoutTheRxCqDataMode() throws FabricException {
        long rma = Fi.FI_RMA | Fi.FI_READ | Fi.FI_WRITE | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE;
        List<Info> infos = match(rdmRmaHints(Fi.FI_MSG | rma));
        assertEquals(1, infos.size());
        Info rdm = infos.get(0);
        assertEquals(EpType.RDM, rdm.epAttr().type());
        assertEquals(rma, rdm.caps() & rma, "RMA caps");
        assertEquals(Fi.FI_RMA | Fi.FI_READ | Fi.FI_WRITE, rdm.txAttr().caps() & rma,
                "tx_attr: the initiator's RMA caps");
        assertEquals(0, rdm.txAttr().caps() & (Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE | Fi.FI_RECV), "tx_attr: no target caps");
        assertEquals(Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE,
                rdm.rxAttr().caps() & (Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE), "rx_attr: the target's caps");
        assertEquals(1, rdm.txAttr().rmaIovLimit(), "one RMA iov");
        assertEquals(0, rdm.rxAttr().mode() & Fi.FI_RX_CQ_DATA, "a writeData takes an rxm receive buffer");
        Info wantsData = rdmRmaHints(Fi.FI_MSG | rma);
        wantsData.domainAttr().cqDataSize(4);
        assertEquals(EpType.RDM, match(wantsData).get(0).epAttr().type(), "remote CQ data without FI_RX_CQ_DATA");
    }

    /**
     * FI_ATOMIC on MSG only where the device has atomics (atomic_cap); on RDM on every device:
     * rxm's atomics are requests the target's rxm layer executes in software (as libfabric's
     * {@code verbs;ofi_rxm} offers them), so a device without atomics still has RDM atomics.
     */
    @Test
    void rdmOffersAtomicsOnEveryDeviceMsgOnlyWithTheDevicesAtomics() throws FabricException {
        long atomic = Fi.FI_ATOMIC | Fi.FI_READ | Fi.FI_WRITE | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE;
        Info found = match(rdmRmaHints(atomic)).get(0);
        assertEquals(EpType.RDM, found.epAttr().type());
        assertEquals(Fi.FI_ATOMIC, found.txAttr().caps() & Fi.FI_ATOMIC, "tx_attr: FI_ATOMIC");
        ActivePort noAtomics = new ActivePort("rxe0", 1, false, true, 16384, 32, 65536, 1L << 31, 16, false);
        List<Info> offered = offered(noAtomics);
        for (Info i : offered) {
            long expected = i.epAttr().type() == EpType.RDM ? Fi.FI_ATOMIC : 0;
            assertEquals(expected, i.caps() & Fi.FI_ATOMIC, i.epAttr().type() + ": atomics where atomic_cap is NONE");
            assertEquals(expected, i.txAttr().caps() & Fi.FI_ATOMIC, i.epAttr().type() + ": tx_attr");
            assertEquals(Fi.FI_RMA, i.caps() & Fi.FI_RMA, i.epAttr().type() + ": RMA stays");
        }
        Info rdmAtomics = InfoMatcher.filter(offered, VerbsProvider.waiveRxCqData(rdmRmaHints(atomic)), "verbs").get(0);
        assertEquals(EpType.RDM, rdmAtomics.epAttr().type(), "RDM atomics without the device's");
    }
}
