package io.jofi.tools;

import io.jofi.spi.FabricProvider;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * Finds the bundle of a provider by the provider's name: the bundle that registered the
 * {@link FabricProvider} service whose {@code name()} it is, or, while that bundle is stopped,
 * the bundle that declares the name in its {@value #PROVIDER_HEADER} manifest header or whose
 * symbolic name is {@code io.jofi.provider.NAME}.
 */
final class ProviderBundles {
    /**
     * The manifest header by which a provider bundle names the provider it registers, e.g.
     * {@code JOFI-Provider: tcp}. Every provider bundle sets it (in its bnd.bnd).
     */
    static final String PROVIDER_HEADER = "JOFI-Provider";

    /** The symbolic-name prefix of the project's own provider bundles. */
    static final String SYMBOLIC_NAME_PREFIX = "io.jofi.provider.";

    static final String WHERE_WE_LOOKED = "no FabricProvider service has that name, and no bundle has the manifest header "
            + PROVIDER_HEADER + " with it or the symbolic name " + SYMBOLIC_NAME_PREFIX + "<name>";

    private ProviderBundles() {
    }

    /**
     * The provider bundles that are installed but not started, by provider name (from the
     * {@value #PROVIDER_HEADER} header, else the symbolic name), those of {@code registered}
     * names left out: what {@code getInfo} no longer sees but {@code jofi providers start} can bring back.
     */
    static Map<String, Bundle> stopped(BundleContext context, Set<String> registered) {
        Map<String, Bundle> stopped = new TreeMap<>();
        for (Bundle bundle : context.getBundles()) {
            String header = bundle.getHeaders("").get(PROVIDER_HEADER);
            String symbolicName = bundle.getSymbolicName();
            String name = header != null ? header
                    : symbolicName != null && symbolicName.startsWith(SYMBOLIC_NAME_PREFIX)
                    ? symbolicName.substring(SYMBOLIC_NAME_PREFIX.length()) : null;
            boolean started = (bundle.getState() & (Bundle.ACTIVE | Bundle.STARTING | Bundle.STOPPING)) != 0;
            if (name != null && !started && !registered.contains(name)) {
                stopped.put(name, bundle);
            }
        }
        return stopped;
    }

    /** A bundle's state in words: {@code RESOLVED}, {@code INSTALLED}, ... */
    static String stateName(Bundle bundle) {
        return switch (bundle.getState()) {
            case Bundle.UNINSTALLED -> "UNINSTALLED";
            case Bundle.INSTALLED -> "INSTALLED";
            case Bundle.RESOLVED -> "RESOLVED";
            case Bundle.STARTING -> "STARTING";
            case Bundle.STOPPING -> "STOPPING";
            case Bundle.ACTIVE -> "ACTIVE";
            default -> Integer.toString(bundle.getState());
        };
    }

    static Optional<Bundle> find(BundleContext context, String name) {
        return registeredBy(context, name).or(() -> declaredBy(context, name));
    }

    private static Optional<Bundle> registeredBy(BundleContext context, String name) {
        try {
            for (ServiceReference<FabricProvider> ref : context.getServiceReferences(FabricProvider.class, null)) {
                FabricProvider provider = context.getService(ref);
                try {
                    if (provider != null && name.equals(provider.name())) {
                        return Optional.ofNullable(ref.getBundle());
                    }
                } finally {
                    if (provider != null) {
                        context.ungetService(ref);
                    }
                }
            }
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e); // the filter is null
        }
        return Optional.empty();
    }

    private static Optional<Bundle> declaredBy(BundleContext context, String name) {
        for (Bundle bundle : context.getBundles()) {
            if (name.equals(bundle.getHeaders("").get(PROVIDER_HEADER))
                    || (SYMBOLIC_NAME_PREFIX + name).equals(bundle.getSymbolicName())) {
                return Optional.of(bundle);
            }
        }
        return Optional.empty();
    }
}
