package io.jofi.rsa;

import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.rsa.channel.ChannelSettings;
import io.jofi.rsa.channel.ExportedServices;
import io.jofi.rsa.channel.FabricChannel;
import io.jofi.rsa.channel.RsaCounters;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The channels of this container, one per fabric provider, opened on first use and closed
 * when their provider departs: the one place that turns a provider name into an endpoint, with
 * the hints every channel needs (RDM, tagged messages, RMA reads of registered memory).
 */
public final class ChannelPool {
    private final Fabrics fabrics;
    private final ChannelSettings settings;
    private final ExportedServices exports;
    private final RsaCounters counters;
    private final Map<String, FabricChannel> channels = new ConcurrentHashMap<>();
    private volatile Runnable onChannelLost = () -> { };

    public ChannelPool(Fabrics fabrics, ChannelSettings settings, ExportedServices exports, RsaCounters counters) {
        this.fabrics = fabrics;
        this.settings = settings;
        this.exports = exports;
        this.counters = counters;
    }

    /** The hints of a channel's endpoint; {@code provider} may be null for any. */
    static Info hints(String provider) {
        Info hints = new Info().caps(Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_READ | Fi.FI_REMOTE_READ);
        hints.epAttr().type(EpType.RDM);
        hints.domainAttr().mrMode(Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_PROV_KEY | Fi.FI_MR_ALLOCATED);
        hints.fabricAttr().provName(provider);
        // The channel's progress thread reads the CQ all the time anyway: with MANUAL progress it
        // moves the data itself, one thread hand-off less per message than the provider's AUTO thread
        hints.domainAttr().dataProgress(Progress.MANUAL);
        return hints;
    }

    /** Run when a channel breaks by itself (its provider's objects failed): its exports must be made again. */
    public void onChannelLost(Runnable listener) {
        this.onChannelLost = listener;
    }

    /** The providers that could carry a channel now, best first (getInfo's order). */
    public List<String> availableProviders() {
        Set<String> names = new LinkedHashSet<>();
        try {
            for (Info info : fabrics.getInfo(null, null, 0, hints(null))) {
                names.add(FabricChannel.transportName(info.fabricAttr().provName()));
            }
        } catch (FabricException e) {
            if (e.errno() != Errno.ENODATA) {
                throw new IllegalStateException("getInfo for remote-services channels failed: " + e.getMessage(), e);
            }
        }
        return new ArrayList<>(names);
    }

    /** The open channel of {@code provider}, opening it if needed. */
    public FabricChannel channel(String provider) throws FabricException {
        FabricChannel open = channels.get(provider);
        if (open != null && open.closedCause() == null) {
            return open;
        }
        synchronized (channels) {
            open = channels.get(provider);
            if (open != null && open.closedCause() == null) {
                return open;
            }
            // the node is a network address: shm has none (a node that is not "this host" is ENODATA there)
            String node = "shm".equals(provider) ? null : settings.node();
            List<Info> infos = fabrics.getInfo(node, null, node == null ? 0 : Fi.FI_SOURCE, hints(provider));
            FabricChannel channel = FabricChannel.open(fabrics, infos.get(0), settings, exports, counters,
                    () -> onChannelLost.run());
            channels.put(provider, channel);
            return channel;
        }
    }

    /**
     * Closes the channels of a departed provider, those of the layered providers over it or of it
     * ({@code tcp;ofi_rxm} goes with {@code tcp} and with {@code ofi_rxm}) among them; returns
     * whether there was one.
     */
    public boolean providerRemoved(String provider, String why) {
        boolean closed = false;
        for (String name : List.copyOf(channels.keySet())) {
            if (name.equals(provider) || name.startsWith(provider + ";") || name.endsWith(";" + provider)) {
                FabricChannel channel = channels.remove(name);
                if (channel != null) {
                    channel.close(why);
                    closed = true;
                }
            }
        }
        return closed;
    }

    public boolean hasChannels() {
        return !channels.isEmpty();
    }

    public ChannelSettings settings() {
        return settings;
    }

    public ExportedServices exports() {
        return exports;
    }

    public void close(String why) {
        for (String provider : List.copyOf(channels.keySet())) {
            providerRemoved(provider, why);
        }
    }
}
