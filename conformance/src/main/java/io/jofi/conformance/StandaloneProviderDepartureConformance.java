package io.jofi.conformance;

import io.jofi.Fabrics;
import io.jofi.internal.FabricsRegistry;
import io.jofi.spi.FabricProvider;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs {@link ProviderDepartureConformance} (R15) in a plain JVM, without OSGi: a registry of
 * its own (the class the OSGi component and {@code Fabrics.standalone()} use) with a provider
 * this test binds; {@link ProviderControl#stop()} unbinds it and then deactivates it, in the
 * order Declarative Services uses when the provider's bundle stops, and
 * {@link ProviderControl#start()} binds a fresh one, as DS does when the bundle starts again.
 *
 * <p>A provider runs the suite with a subclass in its test tree that names itself and says
 * how its component is made and deactivated:
 * <pre>{@code
 * class TcpProviderDepartureConformanceTest extends StandaloneProviderDepartureConformance<TcpProvider> {
 *     TcpProviderDepartureConformanceTest() { super(TcpProvider::new, TcpLifecycle::deactivate); }
 *     @Override protected String provider() { return "tcp"; }
 * }
 * }</pre>
 *
 * <p>Plain JVM only: the registry class is private to the api bundle, so in OSGi this class
 * does not load (the kit imports its package optionally); an OSGi test stops and starts the
 * provider's bundle in a {@link ProviderControl} of its own instead.
 *
 * @param <P> the provider's component class
 */
public abstract class StandaloneProviderDepartureConformance<P extends FabricProvider>
        extends ProviderDepartureConformance {
    private final FabricsRegistry registry = new FabricsRegistry();
    private final Supplier<P> newProvider;
    private final Consumer<P> deactivate;
    private final ProviderControl control = new ProviderControl() {
        @Override
        public void stop() {
            // DS order on bundle stop: the registry's reference is unbound, then the
            // provider component is deactivated
            registry.unbindProvider(current, Map.of());
            deactivate.accept(current);
        }

        @Override
        public void start() {
            bindFresh();
        }
    };
    private P current;

    /**
     * Binds the first provider.
     *
     * @param newProvider makes a provider component, as DS does when the bundle starts
     * @param deactivate  what DS calls on that component when the bundle stops (its
     *                    {@code @Deactivate}: everything it opened departs, R15)
     */
    protected StandaloneProviderDepartureConformance(Supplier<P> newProvider, Consumer<P> deactivate) {
        this.newProvider = newProvider;
        this.deactivate = deactivate;
        bindFresh();
    }

    private void bindFresh() {
        current = newProvider.get();
        registry.bindProvider(current, Map.of());
    }

    /** The registry of this test, which holds the provider while it is started. */
    @Override
    protected final Fabrics fabrics() {
        return registry;
    }

    /** Unbinds and deactivates the provider (stop), or binds a fresh one (start). */
    @Override
    protected final ProviderControl providerControl() {
        return control;
    }
}
