package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.spi.FabricProvider;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * An optional base for providers: {@code fi_getinfo} as libfabric's util layer does it, and
 * the bookkeeping of everything the provider opened so that its departure shuts it all down
 * (R15).
 *
 * <p>A provider lists what it can offer for a node/service in {@link #offeredInfos}; this
 * class matches those against the hints with {@link InfoMatcher#filter} (the returned infos are
 * merged copies, with {@code fabricAttr().provName()} = {@link #name()}), and answers
 * {@code Fi.FI_PROV_ATTR_ONLY} with one stub {@link Info} whose only non-default fields are
 * {@code fabricAttr().provName()} and {@code provVersion()} (fi_getinfo(3)). Objects the
 * provider opens go into {@link #resources()}; the provider's DS {@code @Deactivate} calls
 * {@link #departAll()} — or, when its fabrics and domains run {@link ProgressEngine}s started
 * with {@link #startEngine}, {@link #stopEnginesAndDepart()}.
 */
public abstract class AbstractFabricProvider implements FabricProvider {
    private final ProviderResources resources = new ProviderResources();
    /** The running engines of this provider's fabrics and domains; also the lock of {@link #stopping}. */
    private final Set<ProgressEngine> engines = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Set once {@link #stopEnginesAndDepart()} began: no engine may start any more. */
    private boolean stopping;

    /** For subclasses. */
    protected AbstractFabricProvider() {
    }

    /**
     * The infos this provider can offer for {@code node}/{@code service} (as {@code flags}
     * interpret them, e.g. {@code Fi.FI_SOURCE}), best first, before any hint is applied.
     * Source/destination addresses resolved from node/service belong in them.
     *
     * @throws FabricException for a node or service that is not valid here (e.g.
     *         {@code EINVAL}, {@code ENODATA} for an unknown host)
     */
    protected abstract List<Info> offeredInfos(String node, String service, long flags)
            throws FabricException;

    /**
     * The provider version as {@code FI_VERSION(major, minor)} for
     * {@code fabricAttr().provVersion()}; by default parsed from the leading
     * {@code major.minor} of {@link #version()} ({@code 0} when it has none).
     */
    protected int providerVersion() {
        return parseVersion(version());
    }

    /**
     * The provider's settings with their defaults, values in effect and descriptions, for
     * {@code jofi info -e} (as {@code fi_info -e}); a provider with settings answers
     * {@link ProviderSettings#describe}. None by default.
     */
    public List<ProviderSetting> settings() {
        return List.of();
    }

    /** Everything this provider has opened and not closed (R15). */
    public final ProviderResources resources() {
        return resources;
    }

    /**
     * {@code fi_getinfo} for this provider: with {@code Fi.FI_PROV_ATTR_ONLY} one stub info
     * (hints ignored, as fi_getinfo(3) says); otherwise {@link #offeredInfos} filtered and
     * merged by {@link InfoMatcher#filter}.
     *
     * @throws FabricException {@code ENODATA} naming the first hint not met
     *         ({@code "<name>: <mismatch>"}); {@code ENODEV} after {@link #departAll()}; whatever
     *         {@link #offeredInfos} throws
     */
    @Override
    public List<Info> getInfo(String node, String service, long flags, Info hints)
            throws FabricException {
        if (resources.isDeparted()) {
            throw new FabricException(Errno.ENODEV, name() + ": provider has departed");
        }
        if ((flags & Fi.FI_PROV_ATTR_ONLY) != 0) {
            Info stub = new Info();
            stub.fabricAttr(new FabricAttr().provName(name()).provVersion(providerVersion()));
            return List.of(stub);
        }
        // named and versioned before the match: hints copied from a returned info find it again
        List<Info> offered = offeredInfos(node, service, flags);
        for (Info info : offered) {
            if (info == null) {
                continue;
            }
            if (info.fabricAttr() == null) {
                info.fabricAttr(new FabricAttr());
            }
            FabricAttr f = info.fabricAttr();
            if (f.provName() == null) {
                f.provName(name());
            }
            if (f.provVersion() == 0) {
                f.provVersion(providerVersion());
            }
        }
        return InfoMatcher.filter(offered, hints, name());
    }

    /**
     * Shuts down everything this provider opened, newest first (R15), and makes later
     * {@link #getInfo} calls answer {@code ENODEV}. The provider's DS {@code @Deactivate}
     * calls it. Idempotent.
     */
    public void departAll() {
        resources.departAll();
    }

    /**
     * Starts a progress engine for one of this provider's fabrics or domains and records it, so
     * that {@link #stopEnginesAndDepart()} stops it (R15: no thread outlives the provider).
     *
     * @throws FabricException {@code ENODEV} once the provider is departing
     */
    public final ProgressEngine startEngine(Progress mode, String threadName, ProgressEngine.Step step)
            throws FabricException {
        return startEngine(mode, threadName, step, null);
    }

    /**
     * As {@link #startEngine(Progress, String, ProgressEngine.Step)}, with the handler of a
     * failing step (a domain passes {@link UtilDomain#progressFailed}).
     *
     * @throws FabricException {@code ENODEV} once the provider is departing
     */
    public final ProgressEngine startEngine(Progress mode, String threadName, ProgressEngine.Step step,
                                            ProgressEngine.FailureHandler onFailure) throws FabricException {
        synchronized (engines) {
            if (stopping || resources.isDeparted()) {
                throw new FabricException(Errno.ENODEV, name() + ": provider has departed");
            }
            ProgressEngine engine = ProgressEngine.start(mode, threadName, step, onFailure);
            engines.add(engine);
            return engine;
        }
    }

    /** Stops an engine of {@link #startEngine} (its thread joined) and forgets it; idempotent. */
    public final void stopEngine(ProgressEngine engine) {
        engine.close();
        synchronized (engines) {
            engines.remove(engine);
        }
    }

    /**
     * The departure of a provider whose objects are moved by progress engines (R15): no engine
     * may start any more, every engine stops (threads joined), then {@link #departAll()}.
     * Progress stops first so that no connection sees its peer (often in this very JVM) go away
     * while departing: every pending operation then ends as {@code ECANCELED}, not in a race
     * between {@code ECANCELED} and a peer-reset error. Idempotent.
     *
     * @throws RuntimeException the last failure of an engine's {@code close}, after everything
     *         else was still stopped and departed
     */
    public final void stopEnginesAndDepart() {
        List<ProgressEngine> all;
        synchronized (engines) {
            stopping = true;
            all = new ArrayList<>(engines);
            engines.clear();
        }
        RuntimeException failed = null;
        for (ProgressEngine e : all) {
            try {
                e.close();
            } catch (RuntimeException ex) {
                failed = ex;
            }
        }
        departAll();
        if (failed != null) {
            throw failed;
        }
    }

    /** {@code "1.2.3"} → {@code FI_VERSION(1, 2)}; {@code "7"} → {@code FI_VERSION(7, 0)}. */
    static int parseVersion(String v) {
        if (v == null) {
            return 0;
        }
        int[] parts = new int[2];
        int part = 0;
        boolean digits = false;
        for (int i = 0; i < v.length() && part < 2; i++) {
            char c = v.charAt(i);
            if (c >= '0' && c <= '9') {
                parts[part] = Math.min(0xFFFF, parts[part] * 10 + (c - '0'));
                digits = true;
            } else if (c == '.' && digits) {
                part++;
                digits = false;
            } else {
                break;
            }
        }
        return Fi.version(parts[0], parts[1]);
    }
}
