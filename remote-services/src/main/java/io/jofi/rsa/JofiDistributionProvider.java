package io.jofi.rsa;

import io.jofi.FabricException;
import io.jofi.rsa.channel.FabricChannel;
import io.jofi.rsa.channel.PeerLink;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.aries.rsa.spi.DistributionProvider;
import org.apache.aries.rsa.spi.Endpoint;
import org.apache.aries.rsa.spi.IntentUnsatisfiedException;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceException;
import org.osgi.service.remoteserviceadmin.EndpointDescription;
import org.osgi.service.remoteserviceadmin.RemoteConstants;

/**
 * The Aries RSA distribution provider of config type {@code io.jofi}: exports a service on
 * every channel that may carry it (or the one its {@code io.jofi.provider} property forces)
 * and describes them all in the endpoint description; imports an endpoint over the channel
 * {@link TransportChoice} picks, as a proxy whose calls travel over it.
 */
@SuppressWarnings("rawtypes")
public final class JofiDistributionProvider implements DistributionProvider {
    private static final System.Logger LOG = System.getLogger(JofiDistributionProvider.class.getName());

    private final ChannelPool pool;
    private final String host;
    private final String forcedProvider;
    private final String container = UUID.randomUUID().toString();
    private volatile Runnable onLackOfProvider = () -> { };

    /**
     * @param forcedProvider the provider every export and import uses, or {@code null} for the best
     */
    public JofiDistributionProvider(ChannelPool pool, String forcedProvider) {
        this.pool = pool;
        this.host = HostIdentity.current();
        this.forcedProvider = forcedProvider;
    }

    /** Called when an export or import found no provider: a later arrival should retry it. */
    void onLackOfProvider(Runnable listener) {
        this.onLackOfProvider = listener;
    }

    @Override
    public String[] getSupportedTypes() {
        return new String[] {EndpointProperties.CONFIG_TYPE};
    }

    @Override
    public Endpoint exportService(Object service, BundleContext serviceContext, Map<String, Object> properties,
                                  Class[] interfaces) {
        Set<String> intents = new HashSet<>();
        intents.addAll(strings(properties.get(RemoteConstants.SERVICE_EXPORTED_INTENTS)));
        intents.addAll(strings(properties.get(RemoteConstants.SERVICE_EXPORTED_INTENTS_EXTRA)));
        intents.removeAll(Arrays.asList(EndpointProperties.INTENTS));
        if (!intents.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "not exporting " + Arrays.toString(interfaces)
                    + ": intents not supported by io.jofi: " + intents);
            return null;
        }
        String hint = stringOf(properties.get(EndpointProperties.PROVIDER));
        if (hint == null) {
            hint = forcedProvider;
        }
        List<FabricChannel> channels = exportChannels(hint);
        if (channels.isEmpty()) {
            onLackOfProvider.run();
            throw new IllegalStateException("no fabric provider can carry " + Arrays.toString(interfaces)
                    + (hint != null ? " (io.jofi.provider=" + hint + ")" : "") + "; available: " + pool.availableProviders());
        }
        long id = pool.exports().add(service, classes(interfaces));
        List<String> addresses = new ArrayList<>();
        for (FabricChannel channel : channels) {
            addresses.add(channel.provider() + "=" + channel.addressText());
        }
        FabricChannel first = channels.get(0);
        properties.put(RemoteConstants.ENDPOINT_ID, "io.jofi://" + container + "/" + id);
        properties.put(RemoteConstants.SERVICE_IMPORTED_CONFIGS, EndpointProperties.CONFIG_TYPE);
        properties.put(RemoteConstants.SERVICE_INTENTS, EndpointProperties.INTENTS.clone());
        properties.put(EndpointProperties.PROVIDER, first.provider());
        properties.put(EndpointProperties.ENDPOINT_TYPE, "rdm");
        properties.put(EndpointProperties.ADDRESS, first.addressText());
        properties.put(EndpointProperties.ADDRESSES, addresses.toArray(new String[0]));
        properties.put(EndpointProperties.HOST, host);
        properties.put(EndpointProperties.SERVICE, id);
        return new JofiEndpoint(new EndpointDescription(properties), pool.exports(), id);
    }

    private List<FabricChannel> exportChannels(String hint) {
        List<String> providers = hint != null ? List.of(hint) : pool.availableProviders();
        List<FabricChannel> channels = new ArrayList<>();
        for (String provider : providers) {
            try {
                channels.add(pool.channel(provider));
            } catch (FabricException | RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "no remote-services channel over " + provider + ": " + e.getMessage());
            }
        }
        return channels;
    }

    @Override
    public Object importEndpoint(ClassLoader loader, BundleContext consumerContext, Class[] interfaces,
                                 EndpointDescription endpoint) throws IntentUnsatisfiedException {
        Map<String, Object> props = endpoint.getProperties();
        Map<String, String> offered = TransportChoice.addresses(props.get(EndpointProperties.ADDRESSES));
        if (offered.isEmpty() && props.get(EndpointProperties.ADDRESS) != null) {
            offered.put(stringOf(props.get(EndpointProperties.PROVIDER)), stringOf(props.get(EndpointProperties.ADDRESS)));
        }
        boolean sameHost = host.equals(props.get(EndpointProperties.HOST));
        List<String> available = pool.availableProviders();
        String provider = TransportChoice.choose(offered, sameHost, forcedProvider, available);
        if (provider == null) {
            onLackOfProvider.run();
            throw new IntentUnsatisfiedException("no local fabric provider reaches " + endpoint.getId() + ": it offers "
                    + offered.keySet() + (sameHost ? " on this host" : " on another host") + ", this container has "
                    + available + (forcedProvider != null ? " and forces " + forcedProvider : ""));
        }
        FabricChannel channel;
        try {
            channel = pool.channel(provider);
        } catch (FabricException e) {
            throw new ServiceException("cannot open a " + provider + " channel to import " + endpoint.getId() + ": "
                    + e.getMessage(), ServiceException.REMOTE, e);
        }
        String text = offered.get(provider);
        PeerLink link = channel.caller().link(Base64.getUrlDecoder().decode(text), text);
        long service = longOf(props.get(EndpointProperties.SERVICE));
        long timeout = props.get(EndpointProperties.TIMEOUT) != null ? longOf(props.get(EndpointProperties.TIMEOUT))
                : pool.settings().timeoutMillis();
        RemoteServiceProxy handler = new RemoteServiceProxy(channel, link, service, classes(interfaces), loader, timeout,
                endpoint.getId() + " over " + provider);
        return Proxy.newProxyInstance(loader, classes(interfaces), handler);
    }

    private static Class<?>[] classes(Class[] interfaces) {
        Class<?>[] copy = new Class<?>[interfaces.length];
        System.arraycopy(interfaces, 0, copy, 0, interfaces.length);
        return copy;
    }

    private static List<String> strings(Object value) {
        if (value == null) {
            return List.of();
        }
        if (value instanceof String s) {
            return List.of(s.split(",")).stream().map(String::trim).filter(x -> !x.isEmpty()).toList();
        }
        if (value instanceof String[] a) {
            return Arrays.asList(a);
        }
        if (value instanceof Collection<?> c) {
            return c.stream().map(String::valueOf).toList();
        }
        return List.of(String.valueOf(value));
    }

    private static String stringOf(Object value) {
        List<String> list = strings(value);
        return list.isEmpty() || list.get(0).isBlank() ? null : list.get(0).trim();
    }

    private static long longOf(Object value) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        return Long.parseLong(String.valueOf(value).trim());
    }
}
