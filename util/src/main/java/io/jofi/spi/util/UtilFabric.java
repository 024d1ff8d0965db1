package io.jofi.spi.util;

import io.jofi.Domain;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fid;
import io.jofi.FidClass;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.WaitAttr;
import io.jofi.WaitSet;
import java.util.Objects;

/**
 * The fabric of every provider ({@code fi_fabric(3)}): opens event queues and wait sets,
 * answers {@code fi_trywait}, and keeps the books of everything opened under it.
 *
 * <ul>
 * <li>Every object opened under the fabric (domains, EQs, wait sets, and through
 *     {@link #adopt} whatever a domain or the provider opens) is recorded in the provider's
 *     {@link ProviderResources} and removed when closed, so that the provider's departure
 *     reaches all of them (R15).</li>
 * <li>Every object retains what it was opened under: closing the fabric while a domain, EQ or
 *     wait set is open, or a domain while its objects are, throws {@code EBUSY} and changes
 *     nothing (R9).</li>
 * <li>After departure ({@link ProviderResources#departAll()}) every control call throws
 *     {@code ENODEV} (R15).</li>
 * </ul>
 *
 * <p>A provider extends it with {@link #domain(Info, Object)} (usually
 * {@code return new XDomain(this, info, context);}, a {@link UtilDomain}) and, for MSG
 * endpoints, {@link #passiveEndpoint}.
 */
public abstract class UtilFabric extends AbstractFid implements Fabric {
    /** The wait bridges of this fabric's open MANUAL domains, for {@link #tryWait}. */
    private final java.util.concurrent.CopyOnWriteArrayList<WaitBridge> bridges = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final FabricAttr attr;
    private final ProviderResources resources;

    /**
     * Opens the fabric and records it in {@code resources}.
     *
     * @param attr      the fabric attributes of the {@code Info} it is opened for; copied
     * @param resources the provider's book of open objects
     * @throws IllegalStateException when the provider has departed already (see {@link ProviderResources#add})
     */
    protected UtilFabric(FabricAttr attr, Object context, ProviderResources resources) {
        super(FidClass.FABRIC, context);
        this.attr = attr == null ? new FabricAttr() : attr.copy();
        this.resources = Objects.requireNonNull(resources, "resources");
        resources.add(this);
        whenClosed(() -> resources.remove(this));
    }

    /** {@code fi_domain}: a domain of this provider for {@code info}; a {@link UtilDomain} usually. */
    @Override
    public abstract Domain domain(Info info, Object context) throws FabricException;

    /**
     * {@code fi_passive_ep}. The default has none.
     *
     * @throws FabricException {@code ENOSYS}, naming the provider
     */
    @Override
    public PassiveEndpoint passiveEndpoint(Info info, Object context) throws FabricException {
        ensureOpen("passiveEndpoint");
        throw new FabricException(Errno.ENOSYS, "provider " + providerName() + " has no MSG endpoints");
    }

    /** {@code fi_eq_open}: a {@link UtilEventQueue}, retaining this fabric until it is closed. */
    @Override
    public EventQueue openEq(io.jofi.EqAttr attr, Object context) throws FabricException {
        ensureOpen("openEq");
        return adopt(this, new UtilEventQueue(attr, context, null, providerName()));
    }

    /** {@code fi_wait_open}: a {@link UtilWaitSet}, retaining this fabric until it is closed. */
    @Override
    public WaitSet openWaitSet(WaitAttr attr) throws FabricException {
        ensureOpen("openWaitSet");
        return adopt(this, new UtilWaitSet(attr));
    }

    /**
     * A {@code MANUAL} domain's {@link WaitBridge}, armed by {@link #tryWait} from now on (the
     * domain removes it when it closes, before it stops it).
     */
    public void addBridge(WaitBridge bridge) {
        bridges.add(Objects.requireNonNull(bridge, "bridge"));
    }

    /** Takes back what {@link #addBridge} added. */
    public void removeBridge(WaitBridge bridge) {
        bridges.remove(bridge);
    }

    /**
     * {@code fi_trywait} (R4): 0 when it is safe to block, {@code -EAGAIN} when something is to
     * be read, {@code -EINVAL} for an object without a wait object; {@code -EBADF}/{@code -ENODEV}
     * when this fabric is closed/departed. Then each queue's FD falls silent unless it has
     * something to read, and the {@link WaitBridge} of every {@code MANUAL} domain of this
     * fabric is armed, so that what arrives while the application sleeps on the queues' wait
     * objects signals them ({@link TryWait#tryWait(java.util.Collection, Fid...)}).
     */
    @Override
    public int tryWait(Fid... fids) {
        int rc = dataPathCheck();
        return rc != 0 ? rc : TryWait.tryWait(bridges, fids);
    }

    /**
     * Records {@code child}, just opened under {@code owner} (this fabric, one of its domains,
     * an endpoint ...): {@code owner} is retained until {@code child} is closed, and
     * {@code child} is in {@link #resources()} until then. When that fails, {@code child} is
     * closed again and the error thrown.
     *
     * @return {@code child}
     * @throws FabricException {@code ENODEV} when the provider departed, {@code EBADF} when
     *         {@code owner} was closed meanwhile
     */
    public final <T extends AbstractFid> T adopt(AbstractFid owner, T child) throws FabricException {
        try {
            owner.retain();
        } catch (FabricException e) {
            closeQuietly(child, e);
            throw e;
        }
        try {
            resources.add(child);
        } catch (IllegalStateException departed) {
            owner.release();
            FabricException e = new FabricException(Errno.ENODEV, "the provider " + providerName() + " has departed");
            closeQuietly(child, e);
            throw e;
        }
        child.whenClosed(() -> {
            resources.remove(child);
            owner.release();
        });
        return child;
    }

    private static void closeQuietly(AbstractFid child, FabricException cause) {
        try {
            child.close();
        } catch (FabricException | RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    /** The provider's book of open objects. */
    public final ProviderResources resources() {
        return resources;
    }

    /** The fabric attributes it was opened with (a copy). */
    public FabricAttr attr() {
        return attr.copy();
    }

    /** The provider's name, from the attributes' {@code provName}, for messages. */
    public String providerName() {
        String n = attr.provName();
        return n == null ? "(unnamed)" : n;
    }

    /** Nothing to release by default; a provider overrides it for its own resources. */
    @Override
    protected void onClose() throws FabricException {
    }

    @Override
    protected String describe() {
        return "fabric of provider " + providerName();
    }
}
