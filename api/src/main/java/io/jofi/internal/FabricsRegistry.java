package io.jofi.internal;

import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Fabrics;
import io.jofi.Info;
import io.jofi.ProviderInfo;
import io.jofi.ProviderListener;
import io.jofi.ProviderState;
import io.jofi.spi.FabricProvider;
import io.jofi.spi.LayeredProvider;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * The {@link Fabrics} registry: tracks {@link FabricProvider} services (in OSGi through
 * Declarative Services, in a plain JVM through {@link StandaloneFabrics}) and implements
 * {@code fi_getinfo}/{@code fi_fabric} over them as docs/API.md "Discovery" says.
 *
 * <p>Providers are kept in an immutable list replaced under a lock on every change
 * (copy-on-write), in getInfo order: {@code service.ranking} (higher first), then the default
 * order {@code verbs}, {@code shm}, {@code tcp}, then other providers by name, then arrival.
 * Reads ({@code getInfo}, {@code fabric}, {@code providers}) take no lock.
 * {@link ProviderListener}s are told of arrivals and departures after the list has changed
 * and outside any lock, so a listener may call back into the registry (R15).
 */
@Component(service = Fabrics.class, immediate = true)
public class FabricsRegistry implements Fabrics {
    private static final System.Logger LOG = System.getLogger(FabricsRegistry.class.getName());

    /** {@code org.osgi.framework.Constants.SERVICE_RANKING}. */
    static final String SERVICE_RANKING = "service.ranking";

    /** The default order of docs/API.md; providers not listed come after, by name. */
    private static final List<String> DEFAULT_ORDER = List.of("verbs", "shm", "tcp");

    private static final Comparator<Entry> ORDER = Comparator
            .comparingInt((Entry e) -> -e.ranking)
            .thenComparingInt(e -> e.defaultRank)
            .thenComparing(e -> e.name)
            .thenComparingLong(e -> e.sequence);

    /** One tracked provider service. Immutable except for the ranking (replaced on update). */
    private static final class Entry {
        final FabricProvider provider;
        /** The provider as a layer over the cores, or null for a core provider. */
        final LayeredProvider layered;
        final String name;
        final int ranking;
        final int defaultRank;
        final long sequence;

        Entry(FabricProvider provider, String name, int ranking, long sequence) {
            this.provider = provider;
            this.layered = provider instanceof LayeredProvider l ? l : null;
            this.name = name;
            this.ranking = ranking;
            int i = DEFAULT_ORDER.indexOf(name);
            this.defaultRank = i < 0 ? DEFAULT_ORDER.size() : i;
            this.sequence = sequence;
        }
    }

    private final Object lock = new Object();
    /** Sorted, immutable; replaced (never mutated) under {@link #lock}. */
    private volatile List<Entry> entries = List.of();
    private long nextSequence;
    private final CopyOnWriteArrayList<ProviderListener> listeners = new CopyOnWriteArrayList<>();

    /** Creates an empty registry (DS, or {@link StandaloneFabrics}). */
    public FabricsRegistry() {
    }

    // ------------------------------------------------------------------------------------
    // Provider tracking (the methods DS calls)
    // ------------------------------------------------------------------------------------

    /**
     * A provider service arrived: {@code getInfo} sees it from now on, and listeners hear
     * {@code providerAdded} (R15). A provider already bound is not added twice.
     *
     * @param properties the service properties; {@code service.ranking} (an {@link Integer})
     *                   orders it, 0 when absent
     */
    @Reference(service = FabricProvider.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY,
            unbind = "unbindProvider", updated = "updatedProvider")
    public void bindProvider(FabricProvider provider, Map<String, Object> properties) {
        Objects.requireNonNull(provider, "provider");
        Entry added;
        synchronized (lock) {
            if (indexOf(entries, provider) >= 0) {
                return;
            }
            added = new Entry(provider, nameOf(provider), ranking(properties), nextSequence++);
            List<Entry> next = new ArrayList<>(entries);
            next.add(added);
            next.sort(ORDER);
            entries = List.copyOf(next);
        }
        ProviderInfo info = describe(added);
        ProviderEvents.providerChange(info.name(), info.version(), true);
        for (ProviderListener l : listeners) {
            try {
                l.providerAdded(info);
            } catch (RuntimeException e) {
                // One broken listener must neither stop the others nor fail the binding.
                LOG.log(System.Logger.Level.WARNING, "ProviderListener " + l
                        + " failed in providerAdded(" + info + ")", e);
            }
        }
    }

    /**
     * A provider service's properties changed: its {@code service.ranking} is re-read and the
     * order updated. No listener is told (the provider neither arrived nor departed).
     */
    public void updatedProvider(FabricProvider provider, Map<String, Object> properties) {
        synchronized (lock) {
            int i = indexOf(entries, provider);
            if (i < 0) {
                return;
            }
            Entry old = entries.get(i);
            List<Entry> next = new ArrayList<>(entries);
            next.set(i, new Entry(provider, old.name, ranking(properties), old.sequence));
            next.sort(ORDER);
            entries = List.copyOf(next);
        }
    }

    /**
     * A provider service departed: {@code getInfo} no longer asks it, every
     * {@link LayeredProvider} departs what it opened over it (when it is a core), and listeners
     * hear {@code providerRemoved} (R15). Shutting down what the provider opened is the provider's
     * own deactivation's job. Unknown providers are ignored.
     */
    public void unbindProvider(FabricProvider provider, Map<String, Object> properties) {
        Entry removed;
        synchronized (lock) {
            int i = indexOf(entries, provider);
            if (i < 0) {
                return;
            }
            removed = entries.get(i);
            List<Entry> next = new ArrayList<>(entries);
            next.remove(i);
            entries = List.copyOf(next);
        }
        if (removed.layered == null) {
            // what a layer opened over the core departs before the core's own objects do (R15)
            for (Entry l : entries) {
                if (l.layered != null) {
                    try {
                        l.layered.coreDeparted(provider);
                    } catch (RuntimeException e) {
                        LOG.log(System.Logger.Level.WARNING, "layered provider " + l.name
                                + " failed in coreDeparted(" + removed.name + ")", e);
                    }
                }
            }
        }
        ProviderInfo info = describe(removed);
        ProviderEvents.providerChange(info.name(), info.version(), false);
        for (ProviderListener l : listeners) {
            try {
                l.providerRemoved(info);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "ProviderListener " + l
                        + " failed in providerRemoved(" + info + ")", e);
            }
        }
    }

    // ------------------------------------------------------------------------------------
    // Fabrics
    // ------------------------------------------------------------------------------------

    /**
     * {@code fi_getinfo} per docs/API.md "Discovery": asks every live provider that the
     * {@code jofi.provider}/{@code FI_PROVIDER} filter and {@code hints.fabricAttr().provName()}
     * admit and that is {@link ProviderState#AVAILABLE}, and returns all their matches in
     * provider order (ranking, default order, name), each provider's in its own order. A
     * {@link LayeredProvider} is asked once over each core, its infos right after the core's,
     * when the pairing {@code core;layer} is admitted as libfabric admits it: a hinted or filtered
     * name of the core, of the layer or of the pairing ({@link HintedName}); a core's own infos
     * only when the core is named alone.
     * A provider that throws anything but a {@link FabricException} is reported, not
     * propagated.
     *
     * @throws FabricException {@code ENODATA} when nothing matches, naming for each provider
     *         the first hint it could not meet, or why it was not asked ({@code excluded by
     *         ...}, {@code unavailable: ...}, {@code not the hinted provider ...}); when every
     *         provider asked failed with the same other errno (e.g. {@code EINVAL} for a bad
     *         node), that errno; {@code ENODATA "no fabric providers are installed"} when
     *         there is none
     */
    @Override
    public List<Info> getInfo(String node, String service, long flags, Info hints)
            throws FabricException {
        List<Entry> snapshot = entries;
        if (snapshot.isEmpty()) {
            throw new FabricException(Errno.ENODATA, "no fabric providers are installed");
        }
        ProviderFilter filter = ProviderFilter.current();
        HintedName hinted = HintedName.parse(hints == null || hints.fabricAttr() == null
                ? null : hints.fabricAttr().provName());
        // fi_getinfo answers with the version it was asked for (the hints' api_version, else
        // ours); FI_PROV_ATTR_ONLY stubs carry prov_name and prov_version only
        int apiVersion = (flags & Fi.FI_PROV_ATTR_ONLY) != 0 ? 0
                : hints == null || hints.fabricAttr() == null || hints.fabricAttr().apiVersion() == 0
                ? Fi.FI_API_VERSION : hints.fabricAttr().apiVersion();
        Answers answers = new Answers(apiVersion);
        if (hints != null && hints.epAttr() != null && hints.epAttr().type() == EpType.RDM
                && snapshot.stream().noneMatch(e -> e.layered != null)) {
            // a plain JVM given a MSG provider's jar alone (tcp, verbs) is a newcomer's first RDM miss
            answers.note("no layered provider is installed to offer FI_EP_RDM over a MSG provider "
                    + "(ofi_rxm: add the bundle or jar io.jofi.provider.rxm)");
        }
        // each core's infos, then those of every layer over it: the pairing ranks as its core
        for (Entry e : snapshot) {
            if (e.layered != null) {
                continue;
            }
            String reason = null;
            if (!filter.accepts(e.name)) {
                reason = filter.exclusionReason();
            } else if (hinted != null && !hinted.admitsCore(e.name)) {
                reason = "not the hinted provider (prov_name " + hinted + ")";
            } else if (stateOf(e.provider) != ProviderState.AVAILABLE) {
                reason = "unavailable: " + reasonOf(e.provider);
            }
            if (reason != null) {
                answers.notAsked(e.name, reason);
            } else {
                answers.ask(e.name, () -> e.provider.getInfo(node, service, flags, hints));
            }
            for (Entry l : snapshot) {
                if (l.layered != null) {
                    askLayer(l, e, filter, hinted, answers, node, service, flags, hints);
                }
            }
        }
        return answers.result();
    }

    /** Asks layer {@code l} over core {@code core} when the filter and the hints admit the pairing. */
    private static void askLayer(Entry l, Entry core, ProviderFilter filter, HintedName hinted, Answers answers,
                                 String node, String service, long flags, Info hints) {
        String pairing = core.name + ";" + l.name;
        if (hinted != null && !hinted.admitsPair(core.name, l.name)) {
            return; // not named: not asked, and not worth a word in the ENODATA message
        }
        String reason = null;
        if (!filter.acceptsLayered(core.name, l.name)) {
            reason = filter.exclusionReason();
        } else if (stateOf(core.provider) != ProviderState.AVAILABLE) {
            reason = "unavailable: " + reasonOf(core.provider);
        } else if (stateOf(l.provider) != ProviderState.AVAILABLE) {
            reason = "unavailable: " + reasonOf(l.provider);
        }
        if (reason != null) {
            answers.notAsked(pairing, reason);
        } else {
            answers.ask(pairing, () -> l.layered.getInfo(core.provider, node, service, flags, hints));
        }
    }

    /** One provider's part of getInfo, as the registry calls it. */
    private interface InfoCall {
        List<Info> call() throws FabricException;
    }

    /** What getInfo gathers: the infos, and for ENODATA why each provider gave none. */
    private static final class Answers {
        private final int apiVersion;
        private final List<Info> result = new ArrayList<>();
        private final StringBuilder why = new StringBuilder();
        private int asked;
        private int commonErrno; // the errno every asked provider failed with, -1 when they differ
        private String note; // said after the providers' reasons when nothing matches

        Answers(int apiVersion) {
            this.apiVersion = apiVersion;
        }

        void note(String text) {
            note = text;
        }

        void notAsked(String name, String reason) {
            if (why.length() > 0) {
                why.append("; ");
            }
            why.append(name).append(": ").append(reason);
        }

        /** Calls a provider; a provider that throws anything but a FabricException is reported, not propagated. */
        void ask(String name, InfoCall call) {
            asked++;
            String reason;
            int errno;
            try {
                List<Info> infos = call.call();
                int before = result.size();
                if (infos != null) {
                    for (Info info : infos) {
                        if (info != null) {
                            claim(info, name, apiVersion);
                            result.add(info);
                        }
                    }
                }
                if (result.size() > before) {
                    return;
                }
                reason = "returned no interfaces";
                errno = Errno.ENODATA;
            } catch (FabricException x) {
                reason = withoutPrefix(x.getMessage(), name);
                errno = x.errno();
                if (errno != Errno.ENODATA) {
                    reason = reason + " (" + Errno.name(errno) + ")";
                }
            } catch (VirtualMachineError x) {
                throw x;
            } catch (Throwable x) {
                // A broken provider (bug, or a bundle half gone) must not break discovery.
                reason = "failed: " + x;
                errno = Errno.FI_EOTHER;
            }
            commonErrno = commonErrno == 0 ? errno : commonErrno == errno ? errno : -1;
            notAsked(name, reason);
        }

        List<Info> result() throws FabricException {
            if (!result.isEmpty()) {
                return result;
            }
            int errno = asked > 0 && commonErrno > 0 && commonErrno != Errno.FI_EOTHER
                    ? commonErrno : Errno.ENODATA;
            throw new FabricException(errno, "no fabric provider matches: " + why
                    + (note == null || errno != Errno.ENODATA ? "" : "; " + note));
        }
    }

    /**
     * {@code fi_fabric}: opens a fabric through the provider named by {@code attr.provName()}
     * (as an {@link Info} from {@link #getInfo} carries it); for a pairing {@code core;layer},
     * through the layer, handed the core.
     *
     * @throws FabricException {@code EINVAL} when {@code attr} or its provider name is missing;
     *         {@code ENODATA} when no such provider is installed, or it is excluded by the
     *         provider filter, or unavailable; whatever the provider throws ({@code FI_EOTHER}
     *         wrapping an unexpected exception)
     */
    @Override
    public Fabric fabric(FabricAttr attr, Object context) throws FabricException {
        if (attr == null) {
            throw new FabricException(Errno.EINVAL, "fabric: attr is null");
        }
        String name = attr.provName();
        if (name == null || name.isBlank()) {
            throw new FabricException(Errno.EINVAL, "fabric: attr.provName() is not set"
                    + " (use the fabricAttr() of an Info that getInfo returned)");
        }
        List<Entry> snapshot = entries;
        int semi = name.indexOf(';');
        Entry found = find(snapshot, semi < 0 ? name : name.substring(name.lastIndexOf(';') + 1).trim());
        Entry core = semi < 0 ? null : find(snapshot, name.substring(0, semi).trim());
        if (found == null || (semi >= 0 && (core == null || core.layered != null || found.layered == null))) {
            List<String> names = new ArrayList<>();
            for (Entry e : snapshot) {
                names.add(e.name);
            }
            throw new FabricException(Errno.ENODATA, "fabric: no provider named " + name
                    + " is installed" + (names.isEmpty() ? "" : " (installed: "
                    + String.join(", ", names) + ")"));
        }
        if (semi < 0 && found.layered != null) {
            throw new FabricException(Errno.EINVAL, "fabric: provider " + found.name + " is layered: name it"
                    + " with its core (core;" + found.name + "), as an Info of getInfo does");
        }
        ProviderFilter filter = ProviderFilter.current();
        if (core == null ? !filter.accepts(found.name) : !filter.acceptsLayered(core.name, found.name)) {
            throw new FabricException(Errno.ENODATA, "fabric: provider " + name + " is "
                    + filter.exclusionReason());
        }
        for (Entry e : core == null ? List.of(found) : List.of(core, found)) {
            if (stateOf(e.provider) != ProviderState.AVAILABLE) {
                throw new FabricException(Errno.ENODATA, "fabric: provider " + e.name
                        + " is unavailable: " + reasonOf(e.provider));
            }
        }
        Fabric fabric;
        try {
            fabric = core == null ? found.provider.fabric(attr, context)
                    : found.layered.fabric(core.provider, attr, context);
        } catch (FabricException e) {
            throw e;
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            throw new FabricException(Errno.FI_EOTHER, "fabric: provider " + name
                    + " failed: " + e, e);
        }
        if (fabric == null) {
            throw new FabricException(Errno.FI_EOTHER, "fabric: provider " + name
                    + " returned no fabric");
        }
        return fabric;
    }

    private static Entry find(List<Entry> snapshot, String name) {
        for (Entry e : snapshot) {
            if (e.name.equalsIgnoreCase(name)) {
                return e;
            }
        }
        return null;
    }

    /**
     * {@code fi_info -l}: every provider bound now (whatever the provider filter says), in
     * getInfo order, with its version, state and the reason it is unavailable.
     */
    @Override
    public List<ProviderInfo> providers() {
        List<Entry> snapshot = entries;
        List<ProviderInfo> out = new ArrayList<>(snapshot.size());
        for (Entry e : snapshot) {
            out.add(describe(e));
        }
        return out;
    }

    /** Registers a listener for provider arrivals and departures (once, however often added). */
    @Override
    public void addListener(ProviderListener listener) {
        listeners.addIfAbsent(Objects.requireNonNull(listener, "listener"));
    }

    /** Unregisters a listener; it hears nothing after this returns. */
    @Override
    public void removeListener(ProviderListener listener) {
        listeners.remove(listener);
    }

    // ------------------------------------------------------------------------------------
    // Helpers: every call into a provider is guarded, a provider's bug is not ours to throw
    // ------------------------------------------------------------------------------------

    private static int indexOf(List<Entry> list, FabricProvider p) {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).provider == p) {
                return i;
            }
        }
        return -1;
    }

    private static int ranking(Map<String, Object> properties) {
        Object r = properties == null ? null : properties.get(SERVICE_RANKING);
        return r instanceof Integer ? (Integer) r : 0;
    }

    private static String nameOf(FabricProvider p) {
        try {
            String n = p.name();
            if (n != null && !n.isBlank()) {
                return n;
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "FabricProvider " + p.getClass().getName()
                    + " failed in name()", e);
        }
        return p.getClass().getName();
    }

    private static ProviderState stateOf(FabricProvider p) {
        try {
            ProviderState s = p.state();
            return s == null ? ProviderState.UNAVAILABLE : s;
        } catch (RuntimeException e) {
            return ProviderState.UNAVAILABLE;
        }
    }

    private static String reasonOf(FabricProvider p) {
        try {
            ProviderState s = p.state();
            if (s == null) {
                return "state() returned null";
            }
            String r = p.unavailableReason();
            return r == null ? "no reason given" : r;
        } catch (RuntimeException e) {
            return "state() failed: " + e;
        }
    }

    private static String versionOf(FabricProvider p) {
        try {
            return p.version();
        } catch (RuntimeException e) {
            return "unknown";
        }
    }

    private static ProviderInfo describe(Entry e) {
        ProviderState state = stateOf(e.provider);
        return new ProviderInfo(e.name, versionOf(e.provider), state,
                state == ProviderState.AVAILABLE ? null : reasonOf(e.provider));
    }

    /** Returned infos route {@link #fabric} by name: fill it in when a provider forgot. */
    private static void claim(Info info, String name, int apiVersion) {
        if (info.fabricAttr() == null) {
            info.fabricAttr(new FabricAttr());
        }
        if (info.fabricAttr().provName() == null) {
            info.fabricAttr().provName(name);
        }
        if (apiVersion != 0) {
            info.fabricAttr().apiVersion(apiVersion);
        }
    }

    /** {@code "tcp: caps FI_RMA not supported"} → {@code "caps FI_RMA not supported"}. */
    private static String withoutPrefix(String message, String name) {
        if (message == null) {
            return "no reason given";
        }
        String prefix = name + ": ";
        return message.startsWith(prefix) ? message.substring(prefix.length()) : message;
    }
}
