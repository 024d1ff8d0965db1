package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.Counter;
import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.PassiveEndpoint;
import io.jofi.PollAttr;
import io.jofi.PollSet;
import io.jofi.Progress;
import io.jofi.WaitAttr;
import io.jofi.WaitSet;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Assumptions;

/**
 * Opens what a conformance test needs from one provider, through the public API only, and
 * closes all of it in reverse order afterwards.
 *
 * <p>Discovery: {@code getInfo} with hints naming the provider ({@code fabricAttr.provName}),
 * the endpoint type, capabilities, mode bits and data progress of the test. When the provider
 * offers nothing for the hints the test is <em>skipped</em> with a reason that names the
 * missing capability ("provider tcp lacks FI_RMA"); when the provider answers
 * {@code ENOSYS} to opening an endpoint the reason says so ("provider fixture cannot open
 * endpoints (ENOSYS)"). Nothing else skips: every other failure fails the test.
 *
 * <p>Everything opened through this class is remembered and closed by {@link #close()} in
 * reverse order; a close that fails (e.g. {@code EBUSY} because a test left something bound)
 * fails the test, since R9 says closing in the right order always works.
 */
public final class ConformanceFixture implements AutoCloseable {
    private static final CqEntry[] NO_ENTRIES = new CqEntry[0];

    private final Fabrics fabrics;
    private final String provider;
    private final EpType epType;
    private final Progress progress;
    private final Deque<Fid> opened = new ArrayDeque<>();
    private final List<CompletionQueue> cqs = new CopyOnWriteArrayList<>();
    private final List<Counter> counters = new CopyOnWriteArrayList<>();
    private final Await await;
    private Info domainInfo;
    private Fabric fabric;
    private Domain domain;
    private long nextKey = 0x4a0f1000L;

    /**
     * @param fabrics   the registry to ask
     * @param provider  the provider under test (its {@code ProviderInfo.name()})
     * @param epType    the endpoint type of the tests, or {@code EpType.UNSPEC} for the
     *                  provider's first choice
     * @param progress  the data progress to ask for, or {@code Progress.UNSPEC} for the
     *                  provider's default
     * @param timeoutMs the bound of every wait
     */
    public ConformanceFixture(Fabrics fabrics, String provider, EpType epType, Progress progress, long timeoutMs) {
        this.fabrics = fabrics;
        this.provider = provider;
        this.epType = epType;
        this.progress = progress;
        this.await = new Await(timeoutMs, this::driveProgress);
    }

    /** The registry. */
    public Fabrics fabrics() {
        return fabrics;
    }

    /** The provider under test. */
    public String provider() {
        return provider;
    }

    /** The bounded-wait helper, driving progress on every CQ and counter opened here. */
    public Await await() {
        return await;
    }

    // ------------------------------------------------------------------ discovery

    /**
     * Hints for this provider with {@code caps}, {@code mode} and the kit's endpoint type and
     * progress. The mr_mode bits say what the kit handles: it targets
     * {@code MemoryRegion.address() + offset} with {@code key()} (FI_MR_VIRT_ADDR,
     * FI_MR_PROV_KEY) and registers only memory it allocated (FI_MR_ALLOCATED), so providers
     * that need them (verbs) match. The kit also declares {@code FI_RX_CQ_DATA} in the mode
     * bits (fi_getinfo(3): remote CQ data consumes a posted receive at the target): where the
     * returned Info carries it ({@link #consumesReceiveForCqData}), the tests post a receive
     * before every transfer that carries remote CQ data.
     */
    public Info hints(long caps, long mode, EpType type) {
        Info hints = new Info().caps(caps).mode(mode | Fi.FI_RX_CQ_DATA);
        hints.epAttr().type(type == null ? epType : type);
        hints.fabricAttr().provName(provider);
        hints.domainAttr().mrMode(Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_ALLOCATED | Fi.FI_MR_PROV_KEY);
        if (progress != Progress.UNSPEC) {
            hints.domainAttr().dataProgress(progress);
        }
        return hints;
    }

    /**
     * fi_getinfo(3) {@code FI_RX_CQ_DATA}: whether a transfer carrying remote CQ data consumes
     * a posted receive at the endpoint opened with {@code info} (in {@code mode} or
     * {@code rx_attr.mode}), so that an RMA write with data needs a receive posted first.
     */
    public static boolean consumesReceiveForCqData(Info info) {
        long mode = info.mode() | (info.rxAttr() == null ? 0 : info.rxAttr().mode());
        return (mode & Fi.FI_RX_CQ_DATA) != 0;
    }

    /** {@code getInfo} for the hints; empty when the provider answers {@code ENODATA}. */
    public List<Info> find(long caps, long mode, EpType type) {
        return findWith(hints(caps, mode, type));
    }

    /**
     * Whether {@code info} is the provider's, or, as libfabric's {@code fi_getinfo} layers them, a
     * layered provider's over it or its own over a core ({@code tcp;ofi_rxm} answers for {@code tcp}
     * and for {@code ofi_rxm}).
     */
    public boolean answersFor(Info info) {
        String name = info.fabricAttr() == null ? null : info.fabricAttr().provName();
        if (name == null) {
            return false;
        }
        String p = provider.toLowerCase(java.util.Locale.ROOT);
        String n = name.toLowerCase(java.util.Locale.ROOT);
        return n.equals(p) || n.startsWith(p + ";") || n.endsWith(";" + p);
    }

    /** The provider's first Info for {@code caps}, or a skip naming what it lacks. */
    public Info require(long caps) {
        return require(caps, 0, null);
    }

    /**
     * The provider's first Info for {@code caps}, {@code mode} and {@code type} (null: the
     * kit's type), or a skip whose reason names what the provider lacks.
     */
    public Info require(long caps, long mode, EpType type) {
        List<Info> infos = find(caps, mode, type);
        if (!infos.isEmpty()) {
            Info info = infos.get(0);
            assertTrue(answersFor(info), "getInfo with provName=" + provider + " returned another provider's Info: "
                    + info.fabricAttr().provName());
            followProviderOf(info);
            return info;
        }
        Assumptions.assumeTrue(false, lacking(caps, mode, type == null ? epType : type));
        throw new AssertionError("unreachable");
    }

    private String lacking(long caps, long mode, EpType type) {
        Info anyHints = new Info();
        anyHints.fabricAttr().provName(provider);
        if (findWith(anyHints).isEmpty()) {
            return fail("provider " + provider + " offers no Info at all: is it registered and available? providers: "
                    + fabrics.providers());
        }
        if (progress != Progress.UNSPEC && find(0, 0, EpType.UNSPEC).isEmpty()) {
            return "provider " + provider + " lacks FI_PROGRESS_" + progress.name();
        }
        if (type != EpType.UNSPEC && find(0, 0, type).isEmpty()) {
            return "provider " + provider + " lacks " + type.fiName();
        }
        long offered = 0;
        for (Info i : find(0, 0, type)) {
            offered |= i.caps();
        }
        long missing = caps & ~offered;
        if (missing != 0) {
            return "provider " + provider + " lacks " + Caps.names(missing)
                    + (type == EpType.UNSPEC ? "" : " on " + type.fiName());
        }
        if (mode != 0 && !find(caps, 0, type).isEmpty()) {
            return "provider " + provider + " lacks support for the mode bits 0x" + Long.toHexString(mode)
                    + " with " + Caps.names(caps);
        }
        return "provider " + provider + " lacks " + Caps.names(caps) + " together on "
                + (type == EpType.UNSPEC ? "one endpoint type" : type.fiName());
    }

    private List<Info> findWith(Info hints) {
        try {
            return fabrics.getInfo(null, null, 0, hints);
        } catch (FabricException e) {
            if (e.errno() == Errno.ENODATA) {
                return List.of();
            }
            return fail("getInfo for provider " + provider + " failed: " + e, e);
        }
    }

    // ------------------------------------------------------------------ fabric, domain, queues

    /**
     * The Info the domain was opened with: all the caps of the provider of the Info required last
     * ({@link #require}) for its endpoint type; before any, the provider's first Info for the
     * kit's endpoint type.
     */
    public Info domainInfo() {
        if (domainInfo == null) {
            List<Info> infos = find(0, 0, null);
            domainInfo = infos.isEmpty() ? require(0, 0, null) : infos.get(0);
        }
        return domainInfo;
    }

    /**
     * Makes the fabric and domain that the fixture opens from now on those of {@code info}'s
     * provider, when it is another than the current domain's: a layered provider's Info
     * ({@code tcp;ofi_rxm}, RDM over a core that offers MSG only) is served by its own fabric and
     * domain, where an endpoint of the core's domain would be {@code ENOSYS}. What is already
     * open stays open (and is closed at the end).
     */
    private void followProviderOf(Info info) {
        String wanted = info.fabricAttr().provName();
        if (wanted.equals(domainInfo().fabricAttr().provName())) {
            return;
        }
        Info all = info;
        for (Info i : find(0, 0, info.epAttr().type())) {
            if (wanted.equals(i.fabricAttr().provName())) {
                all = i;
                break;
            }
        }
        domainInfo = all;
        fabric = null;
        domain = null;
    }

    /** The fabric, opened on first use. */
    public Fabric fabric() throws FabricException {
        if (fabric == null) {
            Object ctx = "conformance-fabric";
            fabric = track(fabrics.fabric(domainInfo().fabricAttr(), ctx));
            assertSame(ctx, fabric.context(), "fabric.context() must be the context passed to fabric()");
        }
        return fabric;
    }

    /** The domain, opened on first use. */
    public Domain domain() throws FabricException {
        if (domain == null) {
            Object ctx = "conformance-domain";
            domain = track(fabric().domain(domainInfo(), ctx));
            assertSame(ctx, domain.context(), "domain.context() must be the context passed to domain()");
        }
        return domain;
    }

    /** Opens a CQ (tracked; progress is driven on it while waiting). */
    public CompletionQueue openCq(CqAttr attr, Object context) throws FabricException {
        CompletionQueue cq = track(domain().openCq(attr, context));
        cqs.add(cq);
        return cq;
    }

    /** Opens an EQ (tracked). */
    public EventQueue openEq(EqAttr attr, Object context) throws FabricException {
        return track(fabric().openEq(attr, context));
    }

    /** Opens a counter (tracked; read while waiting, which drives progress). */
    public Counter openCounter(CounterAttr attr, Object context) throws FabricException {
        Counter c = track(domain().openCounter(attr, context));
        counters.add(c);
        return c;
    }

    /** Opens an AV (tracked). */
    public AddressVector openAv(AvAttr attr, Object context) throws FabricException {
        return track(domain().openAv(attr, context));
    }

    /** Opens a wait set (tracked). */
    public WaitSet openWaitSet(WaitAttr attr) throws FabricException {
        return track(fabric().openWaitSet(attr));
    }

    /** Opens a poll set (tracked). */
    public PollSet openPollSet(PollAttr attr) throws FabricException {
        return track(domain().openPollSet(attr));
    }

    /**
     * Registers {@code buf} with {@code access} (a fresh requested key each time), tracked.
     */
    public MemoryRegion register(ByteBuffer buf, long access, Object context) throws FabricException {
        return track(domain().register(buf, access, 0, nextKey++, 0, context));
    }

    /**
     * The descriptor for a local buffer: a registration when the domain's {@code mrMode}
     * has {@code FI_MR_LOCAL}, else {@code null}.
     */
    public MemoryRegion localDesc(ByteBuffer buf) throws FabricException {
        if ((domainInfo().domainAttr().mrMode() & Fi.FI_MR_LOCAL) == 0) {
            return null;
        }
        return register(buf, Fi.FI_SEND | Fi.FI_RECV | Fi.FI_READ | Fi.FI_WRITE, null);
    }

    /** Remembers {@code fid} so that {@link #close()} closes it. */
    public <T extends Fid> T track(T fid) {
        if (fid == null) {
            fail("the provider returned null instead of an object");
        }
        opened.push(fid);
        return fid;
    }

    /** Closes {@code fid} now (the test's own close) and forgets it. */
    public void close(Fid fid) throws FabricException {
        fid.close();
        forget(fid);
    }

    /** Forgets {@code fid} without closing it (the test closed it some other way). */
    public void forget(Fid fid) {
        opened.removeIf(f -> f == fid);
        cqs.removeIf(f -> f == fid);
        counters.removeIf(f -> f == fid);
        if (fid == domain) {
            domain = null;
        }
        if (fid == fabric) {
            fabric = null;
        }
    }

    /**
     * Forgets everything opened so far without closing it: after a provider departure (R15)
     * the provider has shut its objects down itself.
     */
    public void forgetAll() {
        opened.clear();
        cqs.clear();
        counters.clear();
        domain = null;
        fabric = null;
        domainInfo = null;
    }

    /**
     * One round of progress on everything opened here: a zero-count read of each CQ
     * (R1: it drives progress and takes nothing) and a read of each counter.
     */
    public void driveProgress() {
        for (CompletionQueue cq : cqs) {
            cq.read(NO_ENTRIES, 0);
        }
        for (Counter c : counters) {
            c.read();
        }
    }

    // ------------------------------------------------------------------ endpoints

    /**
     * Opens an endpoint for {@code info} (tracked). A provider that answers {@code ENOSYS}
     * skips the test: "provider X cannot open endpoints (ENOSYS)".
     */
    public Endpoint openEndpoint(Info info, Object context) throws FabricException {
        try {
            return track(domain().endpoint(info, context));
        } catch (FabricException e) {
            if (e.errno() == Errno.ENOSYS) {
                Assumptions.assumeTrue(false, "provider " + provider + " cannot open endpoints (ENOSYS)");
            }
            throw e;
        }
    }

    /** Opens a passive endpoint (tracked); {@code ENOSYS} skips as for {@link #openEndpoint}. */
    public PassiveEndpoint openPassiveEndpoint(Info info, Object context) throws FabricException {
        try {
            return track(fabric().passiveEndpoint(info, context));
        } catch (FabricException e) {
            if (e.errno() == Errno.ENOSYS) {
                Assumptions.assumeTrue(false, "provider " + provider + " cannot open passive endpoints (ENOSYS)");
            }
            throw e;
        }
    }

    /**
     * Opens an enabled pair: for MSG a connect/accept choreography through a passive
     * endpoint, for RDM two endpoints that know each other through their AVs.
     */
    public EndpointPair openPair(PairSpec spec) throws FabricException {
        Info info = withRxOpFlags(require(spec.caps, spec.mode, spec.type), spec);
        EpType type = info.epAttr().type();
        if (type == EpType.MSG) {
            return openMsgPair(info, spec);
        }
        return openRdmPair(info, spec);
    }

    /** {@code info} with the spec's receive and transmit op flags added (the Info is the kit's own: changed in place). */
    private static Info withRxOpFlags(Info info, PairSpec spec) {
        if (spec.rxOpFlags != 0) {
            info.rxAttr().opFlags(info.rxAttr().opFlags() | spec.rxOpFlags);
        }
        if (spec.txOpFlags != 0) {
            info.txAttr().opFlags(info.txAttr().opFlags() | spec.txOpFlags);
        }
        return info;
    }

    private EndpointPair openRdmPair(Info info, PairSpec spec) throws FabricException {
        PeerSide a = new PeerSide("a");
        PeerSide b = new PeerSide("b");
        for (PeerSide s : new PeerSide[] {a, b}) {
            s.info = info;
            s.ep = openEndpoint(info, "ep-" + s.label());
            bindQueues(s, spec);
            s.av = openAv(new AvAttr().type(info.domainAttr().avType()), "av-" + s.label());
            s.ep.bind(s.av, 0);
            if (spec.beforeEnable != null) {
                spec.beforeEnable.setUp(s);
            }
            s.ep.enable();
            s.name = s.ep.getName();
            assertTrue(s.name != null && s.name.length > 0, "getName() of an enabled RDM endpoint must be an address");
        }
        a.peer = insertPeer(a, b);
        b.peer = insertPeer(b, a);
        return new EndpointPair(info.epAttr().type(), a, b);
    }

    private static long insertPeer(PeerSide self, PeerSide other) {
        long[] fiAddr = {Fi.FI_ADDR_NOTAVAIL};
        int rc = self.av.insert(new byte[][] {other.name}, fiAddr, 0, null);
        assertEquals(1, rc, "inserting side " + other.label() + "'s getName() into side " + self.label()
                + "'s AV must insert exactly one address (rc " + rc + ")");
        assertTrue(fiAddr[0] != Fi.FI_ADDR_NOTAVAIL, "av.insert must report the new fi_addr_t");
        return fiAddr[0];
    }

    private EndpointPair openMsgPair(Info info, PairSpec spec) throws FabricException {
        PeerSide a = new PeerSide("a");
        PeerSide b = new PeerSide("b");
        // the active endpoint first: a provider without endpoints says ENOSYS here
        a.info = info;
        a.ep = openEndpoint(info, "ep-a");
        a.eq = openEq(new EqAttr(), "eq-a");
        a.ep.bind(a.eq, 0);
        bindQueues(a, spec);
        if (spec.beforeEnable != null) {
            spec.beforeEnable.setUp(a);
        }
        a.ep.enable();

        EventQueue pepEq = openEq(new EqAttr(), "eq-pep");
        PassiveEndpoint pep = openPassiveEndpoint(info, "pep");
        pep.bind(pepEq, 0);
        pep.listen();
        byte[] listenAddr = pep.getName();

        a.ep.connect(listenAddr, spec.connectData);
        EqEntry ev = new EqEntry();
        await.event(pepEq, ev, Fi.FI_CONNREQ, "FI_CONNREQ on the passive endpoint's EQ");
        assertSame(pep, ev.fid(), "FI_CONNREQ's fid must be the passive endpoint (fi_eq(3) EVENT FIELDS)");
        Info req = ev.info();
        assertTrue(req != null && req.handle() != null, "FI_CONNREQ must carry an Info whose handle() is the ConnReq (R14)");

        b.info = withRxOpFlags(req, spec);
        b.ep = openEndpoint(req, "ep-b");
        b.eq = openEq(new EqAttr(), "eq-b");
        b.ep.bind(b.eq, 0);
        bindQueues(b, spec);
        if (spec.beforeEnable != null) {
            spec.beforeEnable.setUp(b);
        }
        b.ep.enable();
        b.ep.accept(spec.acceptData);

        await.event(b.eq, ev, Fi.FI_CONNECTED, "FI_CONNECTED on the accepting side");
        assertSame(b.ep, ev.fid(), "FI_CONNECTED's fid must be the accepting endpoint");
        await.event(a.eq, ev, Fi.FI_CONNECTED, "FI_CONNECTED on the connecting side");
        assertSame(a.ep, ev.fid(), "FI_CONNECTED's fid must be the connecting endpoint");
        a.peer = Fi.FI_ADDR_UNSPEC;
        b.peer = Fi.FI_ADDR_UNSPEC;
        a.name = a.ep.getName();
        b.name = b.ep.getName();
        return new EndpointPair(EpType.MSG, a, b);
    }

    private void bindQueues(PeerSide s, PairSpec spec) throws FabricException {
        long unbound = "a".equals(s.label()) ? spec.unboundOnA : 0;
        if ((unbound & Fi.FI_TRANSMIT) == 0) {
            s.txCq = openCq(spec.txCq.copy(), "txcq-" + s.label());
            s.ep.bind(s.txCq, spec.txBindFlags);
        }
        if ((unbound & Fi.FI_RECV) == 0) {
            s.rxCq = openCq(spec.rxCq.copy(), "rxcq-" + s.label());
            s.ep.bind(s.rxCq, spec.rxBindFlags);
        }
    }

    // ------------------------------------------------------------------ teardown

    /**
     * Closes everything still open, newest first. Every failure is collected; if any close
     * failed, the test fails listing them all.
     */
    @Override
    public void close() {
        List<String> failures = new ArrayList<>();
        // Endpoints first (newest first): suites open an endpoint before the EQ/CQs it binds
        // (to meet ENOSYS early), and a queue still bound to an open endpoint is EBUSY (R9).
        for (java.util.Iterator<Fid> it = opened.iterator(); it.hasNext(); ) {
            Fid fid = it.next();
            if (fid.fidClass() == io.jofi.FidClass.ENDPOINT || fid.fidClass() == io.jofi.FidClass.PASSIVE_ENDPOINT) {
                it.remove();
                try {
                    fid.close();
                } catch (FabricException e) {
                    failures.add(fid.fidClass() + " " + fid.context() + ": " + e);
                } catch (RuntimeException e) {
                    failures.add(fid.fidClass() + " " + fid.context() + ": unexpected " + e);
                }
            }
        }
        while (!opened.isEmpty()) {
            Fid fid = opened.pop();
            try {
                fid.close();
            } catch (FabricException e) {
                failures.add(fid.fidClass() + " " + fid.context() + ": " + e);
            } catch (RuntimeException e) {
                failures.add(fid.fidClass() + " " + fid.context() + ": unexpected " + e);
            }
        }
        cqs.clear();
        counters.clear();
        domain = null;
        fabric = null;
        if (!failures.isEmpty()) {
            fail("closing in reverse order of opening must succeed (R9), but: " + failures);
        }
    }
}
