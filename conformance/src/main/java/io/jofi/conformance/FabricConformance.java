package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.AddrFormat;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.Domain;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.FidClass;
import io.jofi.Info;
import io.jofi.ProviderInfo;
import io.jofi.ProviderState;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Discovery and the object model for one provider: the registry lists it, {@code getInfo}
 * answers with its Infos and honours the hints as libfabric does, every Info offers what
 * docs/API.md says every provider offers at least (where {@link #offersApiMinimums()}; else usable
 * values, the minimums skipped with the advertised ones), no match is {@code ENODATA} with a message that
 * names the provider, and fabric/domain identity and close order (R9).
 */
public abstract class FabricConformance extends ProviderTest {
    /** fi_info -l: the provider is listed, available, and its ProviderInfo names it. */
    @Test
    void providerIsListedAndAvailable() {
        List<ProviderInfo> all = fx.fabrics().providers();
        ProviderInfo mine = all.stream().filter(p -> fx.provider().equals(p.name())).findFirst().orElse(null);
        assertNotNull(mine, "providers() must list " + fx.provider() + ": " + all);
        assertEquals(ProviderState.AVAILABLE, mine.state(), "state of " + fx.provider() + ": " + mine);
        assertTrue(mine.toString().contains(fx.provider()), "ProviderInfo.toString() contains the name");
        assertNotNull(mine.version(), "version");
    }

    /** getInfo with provName returns only that provider's Infos, each one complete enough to open. */
    @Test
    void getInfoAnswersForTheProvider() {
        List<Info> infos = fx.find(0, 0, EpType.UNSPEC);
        assertFalse(infos.isEmpty(), "getInfo with provName=" + fx.provider() + " found nothing");
        for (Info i : infos) {
            assertEquals(fx.provider(), i.fabricAttr().provName(), "provName of " + i.toShortString());
            assertNotNull(i.fabricAttr().name(), "fabric name of " + i.toShortString());
            assertNotNull(i.domainAttr().name(), "domain name of " + i.toShortString());
            assertNotEquals(EpType.UNSPEC, i.epAttr().type(), "endpoint type of " + i.toShortString());
            assertNotEquals(AddrFormat.UNSPEC, i.addrFormat(), "addr_format of " + i.toShortString());
        }
    }

    /**
     * docs/API.md "What every provider offers at least": max_msg_size >= 16 MiB, inject_size >= 64
     * (remote CQ data: {@code MsgConformance}). A provider that does not promise them
     * ({@link #offersApiMinimums()} false: device limits) must still advertise inject_size >= 64
     * and a positive max_msg_size; the 16 MiB is then skipped with the advertised value as the
     * reason.
     */
    @Test
    void everyInfoOffersTheMinimums() {
        List<Info> infos = fx.find(0, 0, EpType.UNSPEC);
        assertFalse(infos.isEmpty(), "getInfo with provName=" + fx.provider() + " found nothing");
        StringBuilder below = new StringBuilder();
        for (Info i : infos) {
            assertTrue(i.txAttr().injectSize() >= 64, "inject_size of " + i.toShortString());
            assertTrue(i.epAttr().maxMsgSize() > 0, "max_msg_size of " + i.toShortString());
            if (offersApiMinimums()) {
                assertTrue(i.epAttr().maxMsgSize() >= 16L << 20, "max_msg_size of " + i.toShortString());
            } else if (i.epAttr().maxMsgSize() < 16L << 20) {
                below.append(' ').append(i.domainAttr().name()).append(": max_msg_size ").append(i.epAttr().maxMsgSize());
            }
        }
        Assumptions.assumeTrue(below.length() == 0, "provider " + fx.provider()
                + " advertises a max_msg_size below docs/API.md's 16 MiB:" + below);
    }

    /**
     * Hint matching: the endpoint type is honoured, and the returned interface caps are the
     * hinted ones (libfabric may add the default direction bits, e.g. FI_SEND|FI_RECV, and
     * its secondary caps).
     */
    @Test
    void hintsAreHonoured() {
        Info any = fx.require(Fi.FI_MSG);
        EpType type = any.epAttr().type();
        long interfaces = Fi.FI_MSG | Fi.FI_RMA | Fi.FI_TAGGED | Fi.FI_ATOMIC | Fi.FI_MULTICAST | Fi.FI_COLLECTIVE;
        for (Info i : fx.find(Fi.FI_MSG, 0, type)) {
            assertEquals(type, i.epAttr().type(), "hinted endpoint type");
            assertTrue((i.caps() & Fi.FI_MSG) != 0, "hinted FI_MSG present in " + Caps.names(i.caps()));
            assertEquals(0, i.caps() & interfaces & ~Fi.FI_MSG,
                    "returned interface caps are only the hinted ones: " + Caps.names(i.caps()));
        }
    }

    /**
     * The completion levels as transmit op flags (fi_getinfo(3) {@code tx_attr->op_flags}, fabtests'
     * {@code -U}): every endpoint type of the provider matches hints asking for each level it offers,
     * and the returned info carries exactly the hinted op flags; hints without op flags get none
     * (the offered ones are what the endpoint can apply, never defaults).
     */
    @Test
    void hintedTransmitOpFlagsAreMatchedAndReturned() {
        long levels = transmitOpFlagsOffered();
        Assumptions.assumeTrue(levels != 0, "provider " + fx.provider() + " offers no transmit op flags");
        for (Info offered : fx.find(0, 0, EpType.UNSPEC)) {
            assertEquals(0, offered.txAttr().opFlags(), "unasked tx op_flags of " + offered.toShortString());
            assertEquals(0, offered.rxAttr().opFlags(), "unasked rx op_flags of " + offered.toShortString());
        }
        for (EpType type : new EpType[] {EpType.MSG, EpType.RDM}) {
            if (fx.find(0, 0, type).isEmpty()) {
                continue;
            }
            for (long level : new long[] {Fi.FI_INJECT_COMPLETE, Fi.FI_TRANSMIT_COMPLETE, Fi.FI_DELIVERY_COMPLETE}) {
                if ((levels & level) == 0) {
                    continue;
                }
                Info hints = fx.hints(0, 0, type);
                hints.txAttr().opFlags(level | Fi.FI_COMPLETION);
                List<Info> infos;
                try {
                    infos = fx.fabrics().getInfo(null, null, 0, hints);
                } catch (FabricException e) {
                    throw new AssertionError(type + " with tx op_flags " + Fi.opFlagsToString(level) + ": " + e, e);
                }
                assertFalse(infos.isEmpty(), type + " with tx op_flags " + Fi.opFlagsToString(level));
                for (Info i : infos) {
                    assertEquals(level | Fi.FI_COMPLETION, i.txAttr().opFlags(), "tx op_flags of " + i.toShortString());
                }
            }
        }
    }

    /**
     * The transmit op flags the provider offers as hints ({@link #hintedTransmitOpFlagsAreMatchedAndReturned}):
     * the completion levels libfabric's tcp, rxm and shm offer. 0 for a provider that offers none.
     */
    protected long transmitOpFlagsOffered() {
        return Fi.FI_INJECT_COMPLETE | Fi.FI_TRANSMIT_COMPLETE | Fi.FI_DELIVERY_COMPLETE;
    }

    /** No match: ENODATA, with a message that names the provider and what it could not meet. */
    @Test
    void noMatchIsEnodataNamingTheProvider() {
        Info hints = fx.hints(0, 0, EpType.UNSPEC);
        hints.fabricAttr().name("no-such-fabric-conformance");
        FabricException e = assertThrows(FabricException.class,
                () -> fx.fabrics().getInfo(null, null, 0, hints), "getInfo with an impossible fabric name");
        assertEquals(Errno.ENODATA, e.errno(), "errno: " + e);
        assertTrue(e.getMessage() != null && e.getMessage().contains(fx.provider()),
                "the message must name the provider and the hint it could not meet: " + e.getMessage());
    }

    /** Fabric and domain carry their context and class. */
    @Test
    void fabricAndDomainIdentity() throws FabricException {
        Fabric fabric = fx.fabric();
        Domain domain = fx.domain();
        assertEquals(FidClass.FABRIC, fabric.fidClass());
        assertEquals(FidClass.DOMAIN, domain.fidClass());
    }

    /** R9 / Fid.close: a domain with an open CQ, and a fabric with an open domain, refuse to close (EBUSY). */
    @Test
    void parentsRefuseToCloseBeforeTheirChildren() throws FabricException {
        Fabric fabric = fx.fabric();
        Domain domain = fx.domain();
        CompletionQueue cq = fx.openCq(new CqAttr(), "cq");
        FabricException e = assertThrows(FabricException.class, domain::close, "closing a domain with an open CQ");
        assertEquals(Errno.EBUSY, e.errno(), "closing a domain with an open CQ: " + e);
        FabricException f = assertThrows(FabricException.class, fabric::close, "closing a fabric with an open domain");
        assertEquals(Errno.EBUSY, f.errno(), "closing a fabric with an open domain: " + f);
        assertEquals(-Errno.EAGAIN, cq.read(new io.jofi.CqEntry[1], 0), "the CQ still works (R9: nothing changed)");
        fx.close(cq);
        fx.close(domain);
        fx.close(fabric);
    }
}
