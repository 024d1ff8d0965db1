package io.jofi.provider.shm;

import aQute.bnd.annotation.Resolution;
import aQute.bnd.annotation.spi.ServiceProvider;
import io.jofi.AddrFormat;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.Threading;
import io.jofi.spi.FabricProvider;
import io.jofi.spi.util.AbstractFabricProvider;
import io.jofi.spi.util.ProviderSetting;
import io.jofi.spi.util.ProviderSettings;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;

/**
 * The {@code shm} provider: RDM endpoints between processes of one host over memory-mapped
 * region files (README "How it works").
 *
 * <p>Offers RDM infos with the address format {@code FI_ADDR_STR} ({@code fi_shm://<name>}),
 * for local communication only: {@code getInfo} matches a null node, a node naming this host
 * (localhost, a loopback address, the host name, one of the host's addresses) or an
 * {@code fi_shm://<name>} node, and answers anything else with {@code ENODATA} saying why; the
 * name or a service ({@code svc-<service>}) becomes {@code srcAddr} with {@code FI_SOURCE},
 * else {@code destAddr} ({@link #offeredInfos}). Two infos are offered, the first without
 * {@code FI_SOURCE_ERR} (a secondary capability that changes what an unknown sender's message
 * completes as, R10, so it is only given to hints that ask for it). Found as a DS component in
 * OSGi and through {@link java.util.ServiceLoader} in a plain JVM; its deactivation departs
 * everything it opened and stops every progress thread (R15).
 */
@Component(service = FabricProvider.class, immediate = true, configurationPid = "io.jofi.provider.shm")
@ServiceProvider(value = FabricProvider.class, resolution = Resolution.OPTIONAL)
public final class ShmProvider extends AbstractFabricProvider {
    /** The provider name. */
    public static final String NAME = "shm";
    /** The provider version ({@code fi_info -l}). */
    public static final String VERSION = "0.1";
    /**
     * The largest message an endpoint sends or receives (docs/API.md asks for 16 MiB at least); it
     * also bounds what one unexpected message from a peer can make this side allocate.
     */
    static final long MAX_MSG_SIZE = 64L << 20;
    /** Transmit and receive queue depth per endpoint. */
    static final int QUEUE_SIZE = 1024;
    /** Buffers per message ({@code Msg} iovs). */
    static final int IOV_LIMIT = 4;
    /** Remote CQ data bytes. */
    static final int CQ_DATA_SIZE = 8;
    /** Every capability of an shm RDM endpoint, without FI_SOURCE_ERR. */
    static final long CAPS = Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_ATOMIC | Fi.FI_READ | Fi.FI_WRITE
            | Fi.FI_RECV | Fi.FI_SEND | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE | Fi.FI_MULTI_RECV | Fi.FI_SOURCE
            | Fi.FI_RMA_EVENT | Fi.FI_LOCAL_COMM | Fi.FI_DIRECTED_RECV;
    /** The fabric and domain name. */
    static final String FABRIC_NAME = "shm";

    /** The {@code jofi.shm.*} system properties of {@link ShmSettings}. */
    private static final ProviderSettings<ShmSettings> SETTINGS = new ProviderSettings<>(ShmSettings.class, "jofi.shm.");

    /** The settings in effect, as given (for {@link #settings()}); the fields below are their clamped values. */
    private volatile ShmSettings settings;
    private volatile Path directory;
    private volatile int ringSize;
    private volatile int bounceSlotSize;
    private volatile int bounceSlotCount;
    private volatile int inlineThreshold;
    private volatile int unexpectedBytes;
    private volatile int cmaThreshold;
    private volatile int peerCheckMillis = ShmSettings.DEFAULT_PEER_CHECK_MILLIS;
    private volatile int progressTimeoutMillis = ShmSettings.DEFAULT_PROGRESS_TIMEOUT_MILLIS;
    /** Tests: the CMA probe this provider's endpoints send expects a wrong value (so it fails). */
    private volatile boolean cmaProbeFault;

    /** For DS and {@link java.util.ServiceLoader}: settings from the system properties {@code jofi.shm.*}. */
    public ShmProvider() {
        fromSystemProperties();
    }

    /**
     * DS: the configured settings; a setting the configuration leaves at its default takes the
     * system property {@code jofi.shm.<name>} when that is set (the container of {@code ./jofi}
     * has no configuration, so {@code JOFI_JAVA_OPTS=-Djofi.shm.cmaThreshold=0} is how a
     * benchmark sets one there).
     */
    @Activate
    void activate(ShmSettings configured) {
        apply(SETTINGS.withSystemProperties(configured));
    }

    /**
     * DS: a configuration change, applied without deactivation, so that no open endpoint is
     * shut down (a deactivation departs everything, R15). Every setting is read when the
     * object it shapes is made (a domain or an endpoint, as its metatype description says),
     * so open objects keep what they were made with.
     */
    @Modified
    void modified(ShmSettings configured) {
        apply(SETTINGS.withSystemProperties(configured));
    }

    /** Reads the {@link ShmSettings} of a plain JVM from the system properties {@code jofi.shm.<name>}. */
    void fromSystemProperties() {
        apply(SETTINGS.fromSystemProperties());
    }

    @Override
    public List<ProviderSetting> settings() {
        return SETTINGS.describe(settings);
    }

    /** {@code peerCheckMillis} (at least 10) and {@code progressTimeoutMillis} (0 = off, else at least 100). */
    private void failureSettings(int peerCheck, int progressTimeout) {
        peerCheckMillis = Math.max(10, peerCheck);
        progressTimeoutMillis = progressTimeout <= 0 ? 0 : Math.max(100, progressTimeout);
    }

    private void apply(ShmSettings s) {
        String dir = s.directory();
        directory = Path.of(dir == null || dir.isBlank() ? ShmSettings.DEFAULT_DIRECTORY : dir);
        // a power of two between 64 KiB and 1 GiB
        int r = Math.max(64 << 10, Math.min(1 << 30, s.ringSize()));
        ringSize = Integer.highestOneBit(r) == r ? r : Integer.highestOneBit(r) << 1;
        bounceSlotSize = (Math.max(64, Math.min(1 << 24, s.bounceSlotSize())) + 63) & ~63;
        bounceSlotCount = Math.max(0, Math.min(1 << 16, s.bounceSlotCount()));
        inlineThreshold = Math.max(256, Math.min(ringSize / 4, s.inlineThreshold()));
        unexpectedBytes = Math.max(0, s.unexpectedBytes());
        cmaThreshold = Math.max(0, s.cmaThreshold());
        failureSettings(s.peerCheckMillis(), s.progressTimeoutMillis());
        settings = s;
    }

    /** Tests: another region directory (before the first domain opens). */
    ShmProvider directory(Path dir) {
        this.directory = dir;
        return this;
    }

    /** Tests: another CMA threshold (0 disables CMA). */
    ShmProvider cmaThreshold(int bytes) {
        this.cmaThreshold = Math.max(0, bytes);
        return this;
    }

    /** Tests: the failure settings ({@link ShmSettings#peerCheckMillis()}, {@link ShmSettings#progressTimeoutMillis()}). */
    ShmProvider failureTimes(int peerCheck, int progressTimeout) {
        failureSettings(peerCheck, progressTimeout);
        return this;
    }

    int peerCheckMillis() {
        return peerCheckMillis;
    }

    int progressTimeoutMillis() {
        return progressTimeoutMillis;
    }

    /** Tests: another unexpected-message budget (bytes, each message counted with its overhead). */
    ShmProvider unexpectedBytes(int bytes) {
        this.unexpectedBytes = Math.max(0, bytes);
        return this;
    }

    /** Tests: make the CMA probes of this provider's endpoints fail (the peer reads an unexpected value). */
    ShmProvider cmaProbeFault(boolean fault) {
        this.cmaProbeFault = fault;
        return this;
    }

    int cmaThreshold() {
        return cmaThreshold;
    }

    boolean cmaProbeFault() {
        return cmaProbeFault;
    }

    Path directory() {
        return directory;
    }

    int ringSize() {
        return ringSize;
    }

    int bounceSlotSize() {
        return bounceSlotSize;
    }

    int bounceSlotCount() {
        return bounceSlotCount;
    }

    int inlineThreshold() {
        return inlineThreshold;
    }

    int unexpectedBytes() {
        return unexpectedBytes;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String version() {
        return VERSION;
    }

    /**
     * The RDM infos of this host: without and with {@code FI_SOURCE_ERR}, addressed by
     * {@code node} and {@code service} (README "Endpoint names"):
     * <ul>
     * <li>node {@code fi_shm://N}: the endpoint named N (the service is ignored then);</li>
     * <li>node null or naming this host, service S: the endpoint named {@code svc-S};</li>
     * <li>node null or naming this host, no service: no address (a provider-chosen name).</li>
     * </ul>
     * The name becomes {@code srcAddr} with {@code Fi.FI_SOURCE} (an endpoint opened with that
     * info takes it at {@code enable}), {@code destAddr} otherwise (fi_getinfo(3)). Any other
     * node is a host name, never an endpoint name: names come only with the scheme.
     *
     * @throws FabricException {@code ENODATA} for a node that is not this host, saying so;
     *         {@code EINVAL} for a name that is not valid ({@link ShmNames#NAME_RULE}) and, with
     *         {@code FI_SOURCE}, for one of the provider's own form {@code <pid>-<d>-<e>}
     */
    @Override
    protected List<Info> offeredInfos(String node, String service, long flags) throws FabricException {
        String named = null;
        if (node != null && node.startsWith(ShmNames.SCHEME)) {
            named = node.substring(ShmNames.SCHEME.length());
            if (!ShmNames.isValidName(named)) {
                throw new FabricException(Errno.EINVAL, "shm: '" + node + "' is not an shm address: the name must be "
                        + ShmNames.NAME_RULE);
            }
        } else {
            if (node != null && !isLocalHost(node)) {
                throw new FabricException(Errno.ENODATA, "shm: node '" + node
                        + "' is not this host; shm only reaches processes on this host (no node, localhost, a loopback"
                        + " address, the host name or one of its addresses; or an fi_shm://<name> address)");
            }
            if (service != null && !service.isBlank()) {
                named = ShmNames.serviceName(service);
                if (named == null) {
                    throw new FabricException(Errno.EINVAL, "shm: service '" + service + "' cannot name an endpoint: "
                            + ShmNames.SERVICE_PREFIX + "<service> must be " + ShmNames.NAME_RULE);
                }
            }
        }
        boolean source = (flags & Fi.FI_SOURCE) != 0;
        if (source && named != null && ShmNames.isEndpointName(named)) {
            String why = ShmNames.whyNotOwnName(named);
            if (why != null) {
                throw new FabricException(Errno.EINVAL, "shm: '" + named
                        + "' has the form of the provider's own names (<pid>-<domain>-<endpoint>) and " + why);
            }
        }
        List<Info> out = new ArrayList<>(2);
        out.add(offer(CAPS));
        out.add(offer(CAPS | Fi.FI_SOURCE_ERR));
        if (named != null) {
            for (Info info : out) {
                if (source) {
                    info.srcAddr(ShmNames.address(named));
                } else {
                    info.destAddr(ShmNames.address(named));
                }
            }
        }
        return out;
    }

    /** Whether {@code node} names this host: localhost, 127.x, ::1, the host name, or an address of an interface. */
    static boolean isLocalHost(String node) {
        String n = node.trim().toLowerCase(Locale.ROOT);
        if (n.isEmpty() || n.equals("localhost") || n.equals("localhost.localdomain") || n.equals("::1")
                || n.equals("[::1]") || n.startsWith("127.")) {
            return true;
        }
        try {
            InetAddress self = InetAddress.getLocalHost();
            if (n.equalsIgnoreCase(self.getHostName()) || n.equalsIgnoreCase(self.getCanonicalHostName())) {
                return true;
            }
        } catch (UnknownHostException e) {
            // no resolvable host name: only the other forms count
        }
        try {
            if (n.equalsIgnoreCase(java.net.InetAddress.getLoopbackAddress().getHostName())) {
                return true;
            }
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                    String text = a.getHostAddress();
                    int pct = text.indexOf('%');
                    if (pct >= 0) {
                        text = text.substring(0, pct);
                    }
                    if (text.equalsIgnoreCase(n)) {
                        return true;
                    }
                }
            }
        } catch (SocketException e) {
            return false;
        }
        return false;
    }

    private static Info offer(long caps) {
        Info info = new Info().caps(caps).addrFormat(AddrFormat.ADDR_STR);
        info.epAttr().type(EpType.RDM).protocol(Fi.FI_PROTO_SHM).maxMsgSize(MAX_MSG_SIZE).txCtxCnt(1).rxCtxCnt(1)
                .memTagFormat(0);
        long txCaps = caps & (Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_ATOMIC | Fi.FI_READ | Fi.FI_WRITE
                | Fi.FI_SEND);
        long rxCaps = caps & (Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_ATOMIC | Fi.FI_RECV | Fi.FI_REMOTE_READ
                | Fi.FI_REMOTE_WRITE | Fi.FI_MULTI_RECV | Fi.FI_SOURCE | Fi.FI_SOURCE_ERR | Fi.FI_RMA_EVENT
                | Fi.FI_DIRECTED_RECV);
        // the op flags an application may ask as defaults, as libfabric's shm offers them
        info.txAttr().caps(txCaps).opFlags(Fi.FI_INJECT | Fi.FI_INJECT_COMPLETE | Fi.FI_TRANSMIT_COMPLETE
                | Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION).injectSize(ShmEndpoint.INJECT_SIZE).size(QUEUE_SIZE).iovLimit(IOV_LIMIT)
                .rmaIovLimit(1).msgOrder(Fi.FI_ORDER_SAS);
        info.rxAttr().caps(rxCaps).opFlags(Fi.FI_MULTI_RECV | Fi.FI_COMPLETION).size(QUEUE_SIZE).iovLimit(IOV_LIMIT).msgOrder(Fi.FI_ORDER_SAS);
        info.domainAttr().name(FABRIC_NAME).threading(Threading.SAFE)
                .controlProgress(Progress.AUTO).dataProgress(Progress.AUTO)
                // FI_RM_ENABLED, as libfabric's shm: posts answer -EAGAIN before a queue or CQ
                // overruns (R6), the unexpected budget pushes back instead of dropping
                .resourceMgmt(io.jofi.ResourceMgmt.ENABLED)
                .cqDataSize(CQ_DATA_SIZE).epCnt(8192).cqCnt(256).txCtxCnt(8192).rxCtxCnt(8192)
                .maxEpTxCtx(1).maxEpRxCtx(1).mrIovLimit(1).mrKeySize(8).maxErrData(256)
                .avType(io.jofi.AvType.MAP);
        info.fabricAttr().name(FABRIC_NAME).provName(NAME);
        return info;
    }

    /**
     * {@code fi_fabric}: an shm fabric.
     *
     * @throws FabricException {@code EINVAL} when {@code attr} names another provider;
     *         {@code ENODEV} after departure (R15)
     */
    @Override
    public Fabric fabric(FabricAttr attr, Object context) throws FabricException {
        if (attr == null) {
            throw new FabricException(Errno.EINVAL, "fabric attributes are required (take them from an Info of getInfo)");
        }
        if (attr.provName() != null && !NAME.equals(attr.provName())) {
            throw new FabricException(Errno.EINVAL, "provider name " + attr.provName() + " is not " + NAME);
        }
        if (resources().isDeparted()) {
            throw new FabricException(Errno.ENODEV, "the shm provider has departed");
        }
        try {
            return new ShmFabric(attr, context, resources(), this);
        } catch (IllegalStateException departedMeanwhile) {
            throw new FabricException(Errno.ENODEV, "the shm provider has departed");
        }
    }

    /**
     * The component deactivates: no engine may start, every engine stops (its thread joined),
     * then every object departs (R15: pending operations ECANCELED).
     */
    @Deactivate
    void deactivate() {
        stopEnginesAndDepart();
    }

}
