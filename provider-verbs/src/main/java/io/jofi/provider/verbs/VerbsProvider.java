package io.jofi.provider.verbs;

import aQute.bnd.annotation.Resolution;
import aQute.bnd.annotation.spi.ServiceProvider;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.ProviderState;
import io.jofi.spi.FabricProvider;
import io.jofi.spi.util.AbstractFabricProvider;
import io.jofi.spi.util.ProviderSetting;
import io.jofi.spi.util.ProviderSettings;
import java.util.List;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;

/**
 * The {@code verbs} provider: InfiniBand, RoCE and iWARP devices through libibverbs and
 * librdmacm, bound with JNA (docs/VERBS.md).
 *
 * <p><b>Availability.</b> On construction (and activation) the provider loads
 * {@code libibverbs.so.1} and {@code librdmacm.so.1} and looks for a device with an active
 * port ({@link DeviceScan}). Without them it stays registered but
 * {@link ProviderState#UNAVAILABLE} with the reason in words ({@link #unavailableReason()},
 * shown by {@code jofi info -l}), {@link #getInfo} returns no info, and nothing throws or
 * logs an error: that is the ordinary state of a machine without RDMA.
 *
 * <p>Found as a DS component in OSGi and through {@link java.util.ServiceLoader} in a plain JVM.
 */
@Component(service = FabricProvider.class, immediate = true, configurationPid = "io.jofi.provider.verbs")
@ServiceProvider(value = FabricProvider.class, resolution = Resolution.OPTIONAL)
public final class VerbsProvider extends AbstractFabricProvider {
    /** The provider name. */
    public static final String NAME = "verbs";
    /** The provider version ({@code fi_info -l}). */
    public static final String VERSION = "0.1";

    /** The {@code jofi.verbs.*} system properties of {@link VerbsSettings}. */
    private static final ProviderSettings<VerbsSettings> SETTINGS = new ProviderSettings<>(VerbsSettings.class, "jofi.verbs.");

    /** The settings in effect, as given (for {@link #settings()}); the fields below are their checked values. */
    private volatile VerbsSettings settings;
    private volatile String device;
    private volatile int queueSize;
    private volatile int pollBatch;
    private volatile int inlineSize;
    private volatile boolean iwarpWriteConfirm = true;
    private volatile DeviceScan scan;
    /** The device contexts' asynchronous events, read by the fabrics' connection-management threads. */
    private final AsyncEvents asyncEvents = new AsyncEvents();
    /** The device ports' RNR counters (made on the first domain: it maps this JVM's counters file). */
    private DeviceCounters deviceCounters;

    /** For DS and {@link java.util.ServiceLoader}: settings from the system properties {@code jofi.verbs.*}. */
    public VerbsProvider() {
        fromSystemProperties();
        scan = DeviceScan.scan();
    }

    /**
     * DS: the configured settings (one left at its default takes the system property
     * {@code jofi.verbs.<name>} when that is set); the devices are scanned again.
     */
    @Activate
    void activate(VerbsSettings configured) {
        apply(SETTINGS.withSystemProperties(configured));
        scan = DeviceScan.scan();
    }

    /**
     * DS: a configuration change, applied without deactivation, so that no open endpoint is
     * shut down (a deactivation departs everything, R15); the devices are scanned again (the
     * device setting may name another). Open domains and endpoints keep what they were made with.
     */
    @Modified
    void modified(VerbsSettings configured) {
        apply(SETTINGS.withSystemProperties(configured));
        scan = DeviceScan.scan();
    }

    /** Reads the {@link VerbsSettings} of a plain JVM from the system properties {@code jofi.verbs.<name>}. */
    void fromSystemProperties() {
        apply(SETTINGS.fromSystemProperties());
    }

    /** Values outside their range keep the default. */
    private void apply(VerbsSettings s) {
        device = s.device() == null ? "" : s.device().trim();
        queueSize = clamp(s.queueSize(), 1, 1 << 16, VerbsSettings.DEFAULT_QUEUE_SIZE);
        pollBatch = clamp(s.pollBatch(), 1, 64, VerbsSettings.DEFAULT_POLL_BATCH);
        inlineSize = clamp(s.inlineSize(), 0, 1024, VerbsSettings.DEFAULT_INLINE_SIZE);
        iwarpWriteConfirm = s.iwarpWriteConfirm();
        settings = s;
    }

    @Override
    public List<ProviderSetting> settings() {
        return SETTINGS.describe(settings);
    }

    private static int clamp(int v, int min, int max, int dflt) {
        return v < min || v > max ? dflt : v;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String version() {
        return VERSION;
    }

    /** {@code AVAILABLE} when the libraries load and a device has an active port (of the configured device, if one is). */
    @Override
    public ProviderState state() {
        return unavailableReason() == null ? ProviderState.AVAILABLE : ProviderState.UNAVAILABLE;
    }

    /** Why the provider cannot work here, in words; {@code null} when it can. */
    @Override
    public String unavailableReason() {
        DeviceScan s = scan;
        if (!s.available()) {
            return s.reason();
        }
        if (ports().isEmpty()) {
            return "the configured device '" + device + "' has no active port (active: "
                    + s.ports().stream().map(p -> p.device() + ":" + p.port()).toList() + ")";
        }
        return null;
    }

    /** The active ports offered: all, or those of the configured device. */
    List<ActivePort> ports() {
        DeviceScan s = scan;
        String d = device;
        if (d == null || d.isEmpty()) {
            return s.ports();
        }
        return s.ports().stream().filter(p -> p.device().equals(d)).toList();
    }

    int queueSize() {
        return queueSize;
    }

    int pollBatch() {
        return pollBatch;
    }

    /** iWARP: whether RDMA writes are confirmed by a zero-length read ({@link VerbsSettings#iwarpWriteConfirm}). */
    boolean iwarpWriteConfirm() {
        return iwarpWriteConfirm;
    }

    int inlineSize() {
        return inlineSize;
    }

    /**
     * {@code fi_getinfo} for verbs: while unavailable none of its infos and no exception (the
     * registry does not ask an unavailable provider; a direct caller gets an empty list);
     * otherwise the MSG infos of the active ports that meet {@code hints}.
     *
     * <p>The infos need {@code FI_RX_CQ_DATA} in {@code rx_attr.mode} (fi_getinfo(3): remote
     * CQ data consumes a posted receive). As libfabric's verbs provider does, that need is
     * waived for hints that ask for no remote CQ data ({@code domain_attr.cq_data_size} 0 and
     * no {@code FI_RX_CQ_DATA} in their modes): such an application never sends data that
     * would consume a receive. The returned infos still carry the bit.
     */
    @Override
    public List<Info> getInfo(String node, String service, long flags, Info hints) throws FabricException {
        if (state() != ProviderState.AVAILABLE && (flags & Fi.FI_PROV_ATTR_ONLY) == 0) {
            return List.of();
        }
        return super.getInfo(node, service, flags, waiveRxCqData(hints));
    }

    /** The hints with FI_RX_CQ_DATA accepted when they ask for no remote CQ data (a copy; null stays null). */
    static Info waiveRxCqData(Info hints) {
        if (hints == null) {
            return null;
        }
        boolean wantsData = (hints.domainAttr() != null && hints.domainAttr().cqDataSize() != 0)
                || ((hints.mode() | (hints.rxAttr() == null ? 0 : hints.rxAttr().mode())) & Fi.FI_RX_CQ_DATA) != 0;
        if (wantsData) {
            return hints;
        }
        Info waived = hints.copy();
        waived.mode(waived.mode() | Fi.FI_RX_CQ_DATA);
        if (waived.rxAttr() != null && waived.rxAttr().mode() != 0) {
            waived.rxAttr().mode(waived.rxAttr().mode() | Fi.FI_RX_CQ_DATA);
        }
        return waived;
    }

    /** The MSG infos of the active ports (one per port). */
    @Override
    protected List<Info> offeredInfos(String node, String service, long flags) throws FabricException {
        return VerbsInfos.offer(ports(), node, service, flags, queueSize, inlineSize);
    }

    /**
     * {@code fi_fabric}: a verbs fabric.
     *
     * @throws FabricException {@code ENODATA} while unavailable (with the reason);
     *         {@code EINVAL} when {@code attr} names another provider; {@code ENODEV} after departure (R15)
     */
    @Override
    public Fabric fabric(FabricAttr attr, Object context) throws FabricException {
        if (attr == null) {
            throw new FabricException(Errno.EINVAL, "fabric attributes are required (take them from an Info of getInfo)");
        }
        if (attr.provName() != null && !NAME.equals(attr.provName())) {
            throw new FabricException(Errno.EINVAL, "provider name " + attr.provName() + " is not " + NAME);
        }
        String why = unavailableReason();
        if (why != null) {
            throw new FabricException(Errno.ENODATA, "verbs unavailable: " + why);
        }
        if (resources().isDeparted()) {
            throw new FabricException(Errno.ENODEV, "the verbs provider has departed");
        }
        return VerbsFabric.open(attr, context, this);
    }

    /** The component deactivates: everything it opened departs (R15). */
    @Deactivate
    void deactivate() {
        try {
            departAll();
        } finally {
            asyncEvents.close();
        }
    }

    /** The device ports' own RNR counters, read off the data path ({@link DeviceCounters}). */
    synchronized DeviceCounters deviceCounters() {
        if (deviceCounters == null) {
            deviceCounters = new DeviceCounters(java.nio.file.Path.of("/sys/class/infiniband"),
                    io.jofi.spi.util.stats.StatsFile.process());
        }
        return deviceCounters;
    }

    /** The asynchronous events of the device contexts the domains use. */
    AsyncEvents asyncEvents() {
        return asyncEvents;
    }
}
