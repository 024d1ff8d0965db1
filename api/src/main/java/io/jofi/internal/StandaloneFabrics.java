package io.jofi.internal;

import aQute.bnd.annotation.Cardinality;
import aQute.bnd.annotation.Resolution;
import aQute.bnd.annotation.spi.ServiceConsumer;
import io.jofi.spi.FabricProvider;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * The plain-JVM registry behind {@code Fabrics.standalone()}: a {@link FabricsRegistry} fed, when
 * made, with every {@link FabricProvider} that {@link ServiceLoader} finds through the api's class
 * loader and through the calling thread's context class loader (each provider class once). The
 * api's {@code META-INF/services/io.jofi.Fabrics} names this class; {@code Fabrics.standalone()}
 * makes one, on first use, and keeps it.
 *
 * <p>The {@link ServiceConsumer} requirement is optional, so the api bundle resolves without a
 * Service Loader Mediator (SPI Fly); in OSGi the DS component is the registry to use. It is
 * also {@code effective:=active}: the framework does not wire it, so the api bundle does not
 * depend on the provider bundles that declare the {@code osgi.serviceloader} capability.
 * Wired, it would make the api a dependent of every provider, and refreshing one provider
 * after an update or uninstall would refresh the api too, and with it the tools and every
 * other provider (R15: a swap touches only the provider swapped).
 */
@ServiceConsumer(value = FabricProvider.class, cardinality = Cardinality.MULTIPLE,
        resolution = Resolution.OPTIONAL, effective = "active")
public final class StandaloneFabrics extends FabricsRegistry {
    private static final System.Logger LOG = System.getLogger(StandaloneFabrics.class.getName());

    /**
     * A registry fed with every provider the two class loaders can see. A provider that fails
     * to load is logged and skipped: one broken jar must not hide the others.
     */
    public StandaloneFabrics() {
        Set<Class<?>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        ClassLoader api = FabricProvider.class.getClassLoader();
        bindAll(this, ServiceLoader.load(FabricProvider.class, api), seen);
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null && context != api) {
            bindAll(this, ServiceLoader.load(FabricProvider.class, context), seen);
        }
    }

    private static void bindAll(FabricsRegistry registry, ServiceLoader<FabricProvider> loader,
                                Set<Class<?>> seen) {
        Map<String, Object> noProperties = Map.of();
        Iterator<FabricProvider> it = loader.iterator();
        // ServiceLoader moves past a broken entry after reporting it; the bound only guards
        // against an iterator that keeps failing on the same one.
        int failures = 0;
        while (failures < 1000) {
            FabricProvider provider;
            try {
                if (!it.hasNext()) {
                    return;
                }
                provider = it.next();
            } catch (ServiceConfigurationError e) {
                LOG.log(System.Logger.Level.WARNING, "a FabricProvider could not be loaded", e);
                failures++;
                continue;
            }
            if (seen.add(provider.getClass())) {
                registry.bindProvider(provider, noProperties);
            }
        }
    }
}
