package io.jofi.conformance;

import io.jofi.Fabrics;
import io.jofi.spi.FabricProvider;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs {@link ProviderDepartureConformance} (R15) in a plain JVM, without OSGi: a registry the
 * subclass hands in, with a provider this test binds to it; {@link ProviderControl#stop()}
 * unbinds it and then deactivates it, in the order Declarative Services uses when the
 * provider's bundle stops, and {@link ProviderControl#start()} binds a fresh one, as DS does
 * when the bundle starts again.
 *
 * <p>The kit uses the public API only: the registry is a {@link Fabrics} with two calls that
 * bind and unbind a provider, as DS calls them. A provider's test hands in the api's registry
 * class (the one behind the OSGi component and {@code Fabrics.standalone()}, private to the api
 * bundle, which a test on the class path may name):
 * <pre>{@code
 * class TcpProviderDepartureConformanceTest extends StandaloneProviderDepartureConformance<TcpProvider> {
 *     TcpProviderDepartureConformanceTest() {
 *         super(new FabricsRegistry(), (r, p) -> r.bindProvider(p, Map.of()),
 *                 (r, p) -> r.unbindProvider(p, Map.of()), TcpProvider::new, TcpLifecycle::deactivate);
 *     }
 *     @Override protected String provider() { return "tcp"; }
 * }
 * }</pre>
 *
 * <p>An OSGi test stops and starts the provider's bundle in a {@link ProviderControl} of its
 * own instead.
 *
 * @param <P> the provider's component class
 */
public abstract class StandaloneProviderDepartureConformance<P extends FabricProvider>
        extends ProviderDepartureConformance {
    private final Fabrics registry;
    private final Consumer<FabricProvider> bind;
    private final Consumer<FabricProvider> unbind;
    private final Supplier<P> newProvider;
    private final Consumer<P> deactivate;
    private final ProviderControl control = new ProviderControl() {
        @Override
        public void stop() {
            // DS order on bundle stop: the registry's reference is unbound, then the
            // provider component is deactivated
            unbind.accept(current);
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
     * @param registry    an empty registry of this test's own
     * @param bind        binds a provider to {@code registry}, as DS binds a provider service
     * @param unbind      unbinds it, as DS does when the provider's bundle stops
     * @param newProvider makes a provider component, as DS does when the bundle starts
     * @param deactivate  what DS calls on that component when the bundle stops (its
     *                    {@code @Deactivate}: everything it opened departs, R15)
     * @param <R>         the registry's class
     */
    protected <R extends Fabrics> StandaloneProviderDepartureConformance(R registry, BiConsumer<R, FabricProvider> bind,
            BiConsumer<R, FabricProvider> unbind, Supplier<P> newProvider, Consumer<P> deactivate) {
        this.registry = registry;
        this.bind = p -> bind.accept(registry, p);
        this.unbind = p -> unbind.accept(registry, p);
        this.newProvider = newProvider;
        this.deactivate = deactivate;
        bindFresh();
    }

    private void bindFresh() {
        current = newProvider.get();
        bind.accept(current);
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
