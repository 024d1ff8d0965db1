package io.jofi.rsa;

import io.jofi.Fabrics;
import io.jofi.rsa.channel.ChannelSettings;
import io.jofi.rsa.channel.ExportedServices;
import io.jofi.rsa.channel.RsaCounters;
import java.util.HashMap;
import java.util.Map;
import org.apache.aries.rsa.spi.Endpoint;
import org.osgi.framework.Constants;
import org.osgi.service.remoteserviceadmin.RemoteConstants;

/**
 * An exporting and an importing container in one JVM: two channel pools (so two real RDM
 * endpoints per provider) and their distribution providers, over {@code Fabrics.standalone()}.
 */
final class RsaPair implements AutoCloseable {
    static final Fabrics FABRICS = Fabrics.standalone();

    final ChannelPool exporterPool;
    final ChannelPool importerPool;
    final JofiDistributionProvider exporter;
    final JofiDistributionProvider importer;
    final RsaCounters exporterCounters = new RsaCounters();

    RsaPair(String provider, ChannelSettings exporterSettings, ChannelSettings importerSettings) {
        exporterPool = new ChannelPool(FABRICS, exporterSettings, new ExportedServices(), exporterCounters);
        importerPool = new ChannelPool(FABRICS, importerSettings, new ExportedServices(), new RsaCounters());
        exporter = new JofiDistributionProvider(exporterPool, provider);
        importer = new JofiDistributionProvider(importerPool, provider);
    }

    RsaPair(String provider) {
        this(provider, settings(30_000, null), settings(30_000, null));
    }

    static ChannelSettings settings(long timeoutMillis, String secret) {
        return new ChannelSettings(timeoutMillis, secret == null ? null : secret.getBytes(), 65_536, 16, 100, null);
    }

    /** Exports {@code service} as {@code type}; returns Aries' view of the endpoint. */
    <T> Endpoint export(Class<T> type, T service, Map<String, Object> extra) {
        Map<String, Object> props = new HashMap<>(extra);
        props.put(Constants.OBJECTCLASS, new String[] {type.getName()});
        props.put(Constants.SERVICE_ID, 42L);
        props.put(RemoteConstants.SERVICE_EXPORTED_INTERFACES, "*");
        props.put(RemoteConstants.SERVICE_EXPORTED_CONFIGS, EndpointProperties.CONFIG_TYPE);
        props.put(RemoteConstants.ENDPOINT_FRAMEWORK_UUID, "exporter-framework");
        return exporter.exportService(service, null, props, new Class[] {type});
    }

    /** Imports {@code endpoint} as a proxy of {@code type}. */
    <T> T importAs(Class<T> type, Endpoint endpoint) {
        return type.cast(importer.importEndpoint(type.getClassLoader(), null, new Class[] {type}, endpoint.description()));
    }

    @Override
    public void close() {
        importerPool.close("test over");
        exporterPool.close("test over");
    }
}
