package io.jofi.tools;

import io.jofi.spi.FabricProvider;
import java.util.Optional;
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
