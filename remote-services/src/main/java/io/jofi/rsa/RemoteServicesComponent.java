package io.jofi.rsa;

import io.jofi.Fabrics;
import io.jofi.ProviderInfo;
import io.jofi.ProviderListener;
import io.jofi.rsa.channel.ChannelSettings;
import io.jofi.rsa.channel.ExportedServices;
import io.jofi.rsa.channel.RsaCounters;
import java.nio.charset.StandardCharsets;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.aries.rsa.spi.DistributionProvider;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.remoteserviceadmin.RemoteConstants;

/**
 * The DS component of the bundle: it builds the channel pool and the distribution provider
 * from its settings and registers the provider as an Aries {@link DistributionProvider}
 * service. When a fabric provider under a channel departs it closes that channel (every
 * waiting call fails naming the cause) and registers the distribution provider anew, and it
 * does the same when a fabric provider arrives: Aries' RemoteServiceAdmin for the old
 * registration goes away with all its exports and imports, the topology manager exports and
 * imports everything again through the new one, over the providers there are now.
 */
@Component(service = {}, immediate = true, configurationPid = "io.jofi.rsa")
@Designate(ocd = RsaSettings.class)
public final class RemoteServicesComponent implements ProviderListener {
    private static final System.Logger LOG = System.getLogger(RemoteServicesComponent.class.getName());

    private final BundleContext context;
    private final Fabrics fabrics;
    private final ChannelPool pool;
    private final JofiDistributionProvider provider;
    private final RsaCounters counters = new RsaCounters();
    private final ExecutorService reregistrations = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "jofi-rsa-reregistration");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean reregistrationQueued = new AtomicBoolean();
    private ServiceRegistration<DistributionProvider> registration;
    /** An export or import found no fabric provider: the next arrival must retry it. */
    private volatile boolean lacking;

    @Activate
    public RemoteServicesComponent(BundleContext context, @Reference Fabrics fabrics, RsaSettings settings) {
        this.context = context;
        this.fabrics = fabrics;
        String secret = settings.io_jofi_rsa_secret();
        String node = settings.io_jofi_rsa_node();
        String forced = settings.io_jofi_provider();
        ChannelSettings channelSettings = new ChannelSettings(settings.io_jofi_rsa_timeout(),
                secret == null || secret.isEmpty() ? null : secret.getBytes(StandardCharsets.UTF_8),
                settings.io_jofi_rsa_inline_limit(), settings.io_jofi_rsa_receives(), settings.io_jofi_rsa_ping_millis(),
                node == null || node.isEmpty() ? null : node);
        this.pool = new ChannelPool(fabrics, channelSettings, new ExportedServices(), counters);
        this.provider = new JofiDistributionProvider(pool, forced == null || forced.isEmpty() ? null : forced);
        provider.onLackOfProvider(() -> lacking = true);
        pool.onChannelLost(() -> reregister("a remote-services channel broke"));
        counters.onChange(this::publishCounters);
        register();
        fabrics.addListener(this);
    }

    private synchronized void register() {
        registration = context.registerService(DistributionProvider.class, provider, properties());
    }

    private Dictionary<String, Object> properties() {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(RemoteConstants.REMOTE_CONFIGS_SUPPORTED, provider.getSupportedTypes());
        props.put(RemoteConstants.REMOTE_INTENTS_SUPPORTED, EndpointProperties.INTENTS.clone());
        props.put("io.jofi.rsa.refused.importers", counters.refusedImporters());
        props.put("io.jofi.rsa.refused.values", counters.refusedValues());
        props.put("io.jofi.rsa.dropped.messages", counters.droppedMessages());
        return props;
    }

    private synchronized void publishCounters() {
        if (registration != null) {
            try {
                registration.setProperties(properties());
            } catch (IllegalStateException unregistered) {
                // the registration went away meanwhile; the next one carries the counts
            }
        }
    }

    @Override
    public void providerAdded(ProviderInfo info) {
        // nothing to redo while nothing was exported or imported and nothing waits for a provider
        if (lacking || pool.hasChannels()) {
            lacking = false;
            reregister("fabric provider " + info.name() + " arrived");
        }
    }

    @Override
    public void providerRemoved(ProviderInfo info) {
        String why = "fabric provider " + info.name() + " departed (ENODEV)";
        if (pool.providerRemoved(info.name(), why)) {
            reregister(why);
        }
    }

    /** Registers the distribution provider anew (once for a burst of provider events). */
    private void reregister(String why) {
        if (!reregistrationQueued.compareAndSet(false, true)) {
            return;
        }
        reregistrations.execute(() -> {
            reregistrationQueued.set(false);
            LOG.log(System.Logger.Level.INFO, "remote services: exporting and importing again: " + why);
            synchronized (this) {
                if (registration == null) {
                    return;
                }
                try {
                    registration.unregister();
                } catch (IllegalStateException alreadyGone) {
                    // the bundle stops
                }
                register();
            }
        });
    }

    @Deactivate
    void deactivate() throws InterruptedException {
        fabrics.removeListener(this);
        synchronized (this) {
            if (registration != null) {
                try {
                    registration.unregister();
                } catch (IllegalStateException alreadyGone) {
                    // unregistered by the framework as the bundle stops
                }
                registration = null;
            }
        }
        reregistrations.shutdown();
        reregistrations.awaitTermination(5, TimeUnit.SECONDS);
        pool.close("the io.jofi.rsa component stopped");
    }
}
