package io.jofi.provider.tcp.conformance;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.Counter;
import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.FidClass;
import io.jofi.Fid;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.PassiveEndpoint;
import io.jofi.PollAttr;
import io.jofi.PollSet;
import io.jofi.WaitAttr;
import io.jofi.WaitSet;
import io.jofi.internal.FabricsRegistry;
import io.jofi.provider.tcp.TcpProvider;
import io.jofi.spi.FabricProvider;
import io.jofi.spi.util.rxm.RxmEndpoint;
import io.jofi.spi.util.rxm.RxmSettings;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A test-only provider "tcp_rxm" whose RDM endpoints are {@link RxmEndpoint}s over the tcp
 * provider's MSG endpoints, so that the conformance kit's RDM suites run against the rxm layer
 * unchanged: everything but the endpoint is tcp's own object (CQs, counters, AVs, EQs), which
 * is how the tcp provider will offer rxm once it is wired to it.
 */
final class RxmOverTcpProvider implements FabricProvider {
    static final String NAME = "tcp_rxm";

    private final TcpProvider tcp = new TcpProvider();

    /** A registry that holds only this provider. */
    static Fabrics registry() {
        FabricsRegistry r = new FabricsRegistry();
        r.bindProvider(new RxmOverTcpProvider(), Map.of());
        return r;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String version() {
        return "1.0";
    }

    @Override
    public List<Info> getInfo(String node, String service, long flags, Info hints) throws FabricException {
        if (hints != null && hints.epAttr() != null && hints.epAttr().type() != EpType.UNSPEC
                && hints.epAttr().type() != EpType.RDM) {
            throw new FabricException(Errno.ENODATA, NAME + " offers RDM endpoints only");
        }
        long wanted = hints == null ? 0 : hints.caps();
        long primary = wanted & (Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_ATOMIC);
        if ((wanted & ~RxmEndpoint.CAPS & ~(Fi.FI_LOCAL_COMM | Fi.FI_REMOTE_COMM)) != 0) {
            throw new FabricException(Errno.ENODATA, NAME + " does not offer caps 0x"
                    + Long.toHexString(wanted & ~RxmEndpoint.CAPS));
        }
        Info msgHints = new Info().caps(Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA | (wanted & Fi.FI_ATOMIC));
        msgHints.epAttr().type(EpType.MSG);
        if (hints != null && hints.domainAttr() != null) {
            msgHints.domainAttr().dataProgress(hints.domainAttr().dataProgress());
        }
        List<Info> out = new ArrayList<>();
        for (Info msg : tcp.getInfo(node == null ? "127.0.0.1" : node, service == null ? "0" : service,
                flags | Fi.FI_SOURCE, msgHints)) {
            Info rdm = msg.copy();
            rdm.epAttr().type(EpType.RDM);
            long secondary = RxmEndpoint.DEFAULT_CAPS & ~(Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA) | (wanted & Fi.FI_SOURCE_ERR);
            rdm.caps(secondary | (primary == 0 ? Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA : primary));
            rdm.txAttr().injectSize(RxmSettings.defaults().eagerLimit());
            rdm.fabricAttr().provName(NAME);
            out.add(rdm);
        }
        return out;
    }

    @Override
    public Fabric fabric(FabricAttr attr, Object context) throws FabricException {
        FabricAttr a = attr.copy();
        a.provName(tcp.name());
        return new RxmFabric(tcp.fabric(a, context));
    }

    /** The Info the tcp provider gets for {@code rdm}. */
    static Info toMsg(Info rdm) {
        Info m = rdm.copy();
        m.epAttr().type(EpType.MSG);
        m.fabricAttr().provName("tcp");
        m.caps(Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_SEND | Fi.FI_RECV | Fi.FI_RMA | Fi.FI_READ | Fi.FI_REMOTE_READ
                | Fi.FI_WRITE | Fi.FI_REMOTE_WRITE | (rdm.caps() & Fi.FI_ATOMIC));
        return m;
    }

    private static final class RxmFabric implements Fabric {
        final Fabric tcp;

        RxmFabric(Fabric tcp) {
            this.tcp = tcp;
        }

        @Override
        public Domain domain(Info info, Object context) throws FabricException {
            return new RxmDomain(tcp, tcp.domain(toMsg(info), context));
        }

        @Override
        public PassiveEndpoint passiveEndpoint(Info info, Object context) throws FabricException {
            throw new FabricException(Errno.ENOSYS, NAME + " offers RDM endpoints only");
        }

        @Override
        public EventQueue openEq(EqAttr attr, Object context) throws FabricException {
            return tcp.openEq(attr, context);
        }

        @Override
        public WaitSet openWaitSet(WaitAttr attr) throws FabricException {
            return tcp.openWaitSet(attr);
        }

        @Override
        public int tryWait(Fid... fids) {
            return tcp.tryWait(fids);
        }

        @Override
        public FidClass fidClass() {
            return tcp.fidClass();
        }

        @Override
        public Object context() {
            return tcp.context();
        }

        @Override
        public void close() throws FabricException {
            tcp.close();
        }
    }

    private static final class RxmDomain implements Domain {
        final Fabric fabric;
        final Domain tcp;

        RxmDomain(Fabric fabric, Domain tcp) {
            this.fabric = fabric;
            this.tcp = tcp;
        }

        @Override
        public Endpoint endpoint(Info info, Object context) throws FabricException {
            if (info.epAttr().type() != EpType.RDM) {
                throw new FabricException(Errno.EINVAL, NAME + " opens RDM endpoints only");
            }
            return RxmEndpoint.open(fabric, tcp, toMsg(info), info.caps(), RxmSettings.defaults(), context);
        }

        @Override
        public CompletionQueue openCq(CqAttr attr, Object context) throws FabricException {
            return tcp.openCq(attr, context);
        }

        @Override
        public Counter openCounter(CounterAttr attr, Object context) throws FabricException {
            return tcp.openCounter(attr, context);
        }

        @Override
        public AddressVector openAv(AvAttr attr, Object context) throws FabricException {
            return tcp.openAv(attr, context);
        }

        @Override
        public PollSet openPollSet(PollAttr attr) throws FabricException {
            return tcp.openPollSet(attr);
        }

        @Override
        public MemoryRegion register(ByteBuffer buf, long access, long offset, long requestedKey, long flags,
                                     Object context) throws FabricException {
            return tcp.register(buf, access, offset, requestedKey, flags, context);
        }

        @Override
        public void bind(EventQueue eq, long flags) throws FabricException {
            tcp.bind(eq, flags);
        }

        @Override
        public FidClass fidClass() {
            return tcp.fidClass();
        }

        @Override
        public Object context() {
            return tcp.context();
        }

        @Override
        public void close() throws FabricException {
            tcp.close();
        }
    }
}
