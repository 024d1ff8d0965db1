package io.jofi.spi.util;

import io.jofi.AddrFormat;
import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.Counter;
import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.FidClass;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.PollAttr;
import io.jofi.PollSet;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * The domain of every provider ({@code fi_domain(3)}): opens the util CQs, counters, AVs and
 * poll sets, registers memory, and completes registrations on a bound EQ.
 *
 * <ul>
 * <li>It retains its fabric until closed; every object it opens retains it and is recorded in
 *     the fabric's {@link ProviderResources} until closed ({@link UtilFabric#adopt}), so
 *     closing the domain while any is open throws {@code EBUSY} (R9), and departure reaches
 *     them all (R15: control calls then throw {@code ENODEV}).</li>
 * <li>{@link #register}: the domain's {@link MemoryRegistry}, with provider-chosen keys when
 *     {@code info.domainAttr().mrMode()} has {@code FI_MR_PROV_KEY}; when an EQ is bound with
 *     {@code FI_REG_MR}, each registration completes with an {@code FI_MR_COMPLETE} event
 *     ({@code fid} = the region, {@code context} = the one given).</li>
 * <li>{@link #progressFailed}: when the provider's progress step throws, the domain fails for
 *     good and says so (README "Failure model") — see there.</li>
 * </ul>
 *
 * <p>A provider extends it with {@link #endpoint(Info, Object)} (opening its endpoints through
 * {@link #adopt}) and may override {@link #addressResolver()}. It starts its engine with
 * {@code this::progressFailed} as the {@link ProgressEngine.FailureHandler}.
 */
public abstract class UtilDomain extends AbstractFid implements Domain {
    private static final System.Logger LOG = System.getLogger(UtilDomain.class.getName());

    private final UtilFabric fabric;
    /** What was opened through {@link #adopt} and is not closed yet, oldest first; guarded by itself. */
    private final List<AbstractFid> children = new ArrayList<>();
    private final Info info;
    private final MemoryRegistry registry = new MemoryRegistry();
    private final boolean providerKeys;
    /** The EQ bound with FI_REG_MR; guarded by this, read without lock by register. */
    private volatile UtilEventQueue mrEq;
    /** Tests only ({@link #injectStepFault}): run at the top of every progress step, or null. */
    private volatile Runnable stepFault;

    /**
     * Opens the domain: retains {@code fabric} until closed and records the domain in the
     * fabric's resources.
     *
     * @param info the provider's info the domain is opened for; copied
     * @throws FabricException {@code EINVAL} for a null info; {@code EBADF}/{@code ENODEV} when
     *         the fabric is closed/its provider departed
     */
    protected UtilDomain(UtilFabric fabric, Info info, Object context) throws FabricException {
        super(FidClass.DOMAIN, context);
        if (fabric == null || info == null) {
            throw new FabricException(Errno.EINVAL, "domain: " + (fabric == null ? "the fabric" : "the info")
                    + " is null");
        }
        this.fabric = fabric;
        this.info = info.copy();
        this.providerKeys = this.info.domainAttr() != null
                && (this.info.domainAttr().mrMode() & Fi.FI_MR_PROV_KEY) != 0;
        fabric.adopt(fabric, this);
    }

    /** {@code fi_endpoint}; implementations open it through {@link #adopt}. */
    @Override
    public abstract Endpoint endpoint(Info info, Object context) throws FabricException;

    /** {@code fi_cq_open}: a {@link UtilCompletionQueue} retaining this domain. */
    @Override
    public CompletionQueue openCq(CqAttr attr, Object context) throws FabricException {
        ensureOpen("openCq");
        return adopt(new UtilCompletionQueue(attr, context, null, fabric.providerName()));
    }

    /** {@code fi_cntr_open}: a {@link UtilCounter} retaining this domain. */
    @Override
    public Counter openCounter(CounterAttr attr, Object context) throws FabricException {
        ensureOpen("openCounter");
        return adopt(new UtilCounter(attr, context));
    }

    /**
     * {@code fi_av_open}: a {@link UtilAddressVector} in the domain's address format with the
     * provider's {@link #addressResolver()}, retaining this domain.
     */
    @Override
    public AddressVector openAv(AvAttr attr, Object context) throws FabricException {
        ensureOpen("openAv");
        return adopt(new UtilAddressVector(attr, context, info.addrFormat(), addressResolver()));
    }

    /** {@code fi_poll_open}: a {@link UtilPollSet} retaining this domain. */
    @Override
    public PollSet openPollSet(PollAttr attr) throws FabricException {
        ensureOpen("openPollSet");
        return adopt(new UtilPollSet(attr));
    }

    /**
     * {@code fi_mr_reg} through {@link #memoryRegistry()} (see
     * {@link MemoryRegistry#register} for the checks). The region retains this domain. With an
     * EQ bound with {@code FI_REG_MR}, an {@code FI_MR_COMPLETE} event follows.
     *
     * @throws FabricException as {@link MemoryRegistry#register}; {@code EOVERRUN} when the
     *         bound EQ could not take the event (the region is closed again: nothing changed)
     */
    @Override
    public MemoryRegion register(ByteBuffer buf, long access, long offset, long requestedKey, long flags,
                                 Object context) throws FabricException {
        ensureOpen("register");
        UtilMemoryRegion region = adopt(registry.register(buf, access, offset, requestedKey, flags, context,
                providerKeys));
        UtilEventQueue q = mrEq;
        if (q != null) {
            int rc = q.post(Fi.FI_MR_COMPLETE, region, context, 0, null, null, 0);
            if (rc < 0) {
                region.close();
                throw new FabricException(-rc, "register: the FI_MR_COMPLETE event could not be queued on the bound"
                        + " event queue (" + Errno.strerror(-rc) + "); the registration was undone");
            }
        }
        return region;
    }

    /**
     * {@code fi_domain_bind}: with {@code FI_REG_MR}, registrations complete with
     * {@code FI_MR_COMPLETE} events on {@code eq}. Retains the EQ until the domain is closed (R9).
     *
     * @throws FabricException {@code EINVAL} for flags other than {@code FI_REG_MR}, a null or
     *         foreign EQ, or a second bind; {@code EBADF}/{@code ENODEV}
     */
    @Override
    public void bind(EventQueue eq, long flags) throws FabricException {
        ensureOpen("bind");
        if (flags != Fi.FI_REG_MR) {
            throw new FabricException(Errno.EINVAL, "domain bind: flags must be FI_REG_MR, got 0x"
                    + Long.toHexString(flags));
        }
        if (!(eq instanceof UtilEventQueue)) {
            throw new FabricException(Errno.EINVAL, "domain bind: " + (eq == null ? "the event queue is null"
                    : eq + " is not an event queue of this provider"));
        }
        UtilEventQueue q = (UtilEventQueue) eq;
        synchronized (this) {
            if (mrEq != null) {
                throw new FabricException(Errno.EINVAL, "domain bind: an event queue is bound with FI_REG_MR already");
            }
            q.retain();
            mrEq = q;
        }
    }

    /**
     * Records {@code child}, just opened under this domain: it retains the domain and is in the
     * fabric's resources until closed ({@link UtilFabric#adopt}). Providers open endpoints
     * through it.
     */
    protected final <T extends AbstractFid> T adopt(T child) throws FabricException {
        T c = fabric.adopt(this, child);
        synchronized (children) {
            children.add(c);
        }
        c.whenClosed(() -> {
            synchronized (children) {
                children.remove(c);
            }
        });
        return c;
    }

    /**
     * The {@link ProgressEngine.FailureHandler} of the domain's engine: its progress step threw
     * (the engine has stopped and logged it with the cause), so nothing will move the domain's
     * data again. Rather than let every pending operation wait for ever, the domain fails for
     * good, in this order:
     * <ol>
     * <li>an error event, {@code err = EIO}, {@code fid} = this domain, {@code errData} = the
     *     reason in UTF-8 (the cause's class and message), on every EQ bound to an endpoint the
     *     engine moves and on the EQ bound with {@code FI_REG_MR};</li>
     * <li>every open endpoint of the domain, newest first, {@link AbstractFid#fail}s: its
     *     {@code onDeparture} completes each pending operation as an error entry with
     *     {@link #departureError()} = {@code EIO} (and counts it on the error counter), a
     *     connected MSG endpoint with an EQ raises {@code FI_SHUTDOWN}, and from then on every
     *     post answers {@code -EIO};</li>
     * <li>the domain itself fails ({@link #markFailed}): control calls throw {@code EIO} naming
     *     the cause; what it holds (sockets, files, the native protection domain the regions
     *     are registered in) stays until the application closes it, as usual, after the
     *     objects opened under it.</li>
     * </ol>
     * CQs, counters, AVs and memory regions stay usable, so the application reads what was
     * reported and closes everything as usual. Runs on the thread whose step threw, while it
     * still owns the step (the provider's progress state needs no lock); never throws.
     */
    protected final void progressFailed(ProgressEngine engine, Throwable cause) {
        String why = "the progress of the " + describe() + " failed: " + cause;
        byte[] reason = why.getBytes(StandardCharsets.UTF_8);
        Set<UtilEventQueue> eqs = Collections.newSetFromMap(new IdentityHashMap<>());
        eqs.addAll(engine.eventQueues());
        UtilEventQueue q = mrEq;
        if (q != null) {
            eqs.add(q);
        }
        for (UtilEventQueue eq : eqs) {
            int rc = eq.postError(this, context(), 0L, Errno.EIO, 0, reason, reason.length);
            if (rc < 0) {
                LOG.log(System.Logger.Level.WARNING, "JOFI " + describe() + ": the progress failure could not be"
                        + " reported on " + eq + " (" + Errno.strerror(rc) + ")");
            }
        }
        List<AbstractFid> open;
        synchronized (children) {
            open = new ArrayList<>(children);
        }
        for (int i = open.size() - 1; i >= 0; i--) {
            AbstractFid c = open.get(i);
            if (c.fidClass() == FidClass.ENDPOINT || c.fidClass() == FidClass.PASSIVE_ENDPOINT) {
                failQuietly(c, why);
            }
        }
        markFailed(why);
    }

    /**
     * Tests only: {@code fault} runs at the top of every progress step from now on (null:
     * none), so that a test can make the real step throw, as a provider bug would, and see
     * {@link #progressFailed} at work. The provider's step calls {@link #runStepFault()} first.
     */
    public final void injectStepFault(Runnable fault) {
        stepFault = fault;
    }

    /** Runs the fault a test injected ({@link #injectStepFault}), if any: the first thing of every progress step. */
    protected final void runStepFault() {
        Runnable f = stepFault;
        if (f != null) {
            f.run();
        }
    }

    /** {@link AbstractFid#fail}, logging rather than throwing: one broken object must not keep the others waiting. */
    private static void failQuietly(AbstractFid fid, String why) {
        try {
            fid.fail(why);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "JOFI: failing " + fid + " after a progress failure threw", e);
        }
    }

    /**
     * The resolver the domain's AVs use: an {@link InetAddressResolver} for socket-address
     * formats, none ({@code null}: any bytes, {@code insertSvc} is {@code -ENOSYS}) for others.
     * Providers with their own address format override it.
     */
    protected AddressResolver addressResolver() {
        AddrFormat f = info.addrFormat();
        return f == AddrFormat.SOCKADDR_IN || f == AddrFormat.SOCKADDR_IN6 ? new InetAddressResolver(f) : null;
    }

    /** The domain's memory regions: the target side of RMA and atomics looks keys up here. */
    public final MemoryRegistry memoryRegistry() {
        return registry;
    }

    /** The info the domain was opened for (the domain's own copy: read, do not modify). */
    public final Info info() {
        return info;
    }

    /** The fabric the domain belongs to. */
    public final UtilFabric fabric() {
        return fabric;
    }

    /** Releases the EQ bound with {@code FI_REG_MR}. Subclasses overriding it call {@code super.onClose()}. */
    @Override
    protected void onClose() throws FabricException {
        UtilEventQueue q;
        synchronized (this) {
            q = mrEq;
            mrEq = null;
        }
        if (q != null) {
            q.release();
        }
    }

    @Override
    protected String describe() {
        return "domain of provider " + fabric.providerName();
    }
}
