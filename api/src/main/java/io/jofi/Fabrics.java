package io.jofi;

import java.util.List;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The registry of providers and the entry point of discovery ({@code fi_getinfo},
 * {@code fi_fabric}). In OSGi it is a service of the api bundle tracking every
 * {@code io.jofi.spi.FabricProvider} service; in a plain JVM {@link #standalone()} gives the
 * same registry with providers found through {@link java.util.ServiceLoader}.
 */
@ProviderType
public interface Fabrics {
    /**
     * {@code fi_getinfo}: asks every live provider and returns all matches, best first — by
     * the provider service's {@code service.ranking} (higher first), then the default order
     * {@code verbs}, {@code shm}, {@code tcp}, then each provider's own order.
     *
     * <p>The provider filter follows libfabric's {@code FI_PROVIDER} syntax (comma list, a
     * leading {@code ^} excludes), read from the system property {@code jofi.provider}, else
     * the environment variable {@code FI_PROVIDER}; {@code hints.fabricAttr().provName()}
     * restricts too. A layered provider's infos are named {@code core;layer}
     * ({@code tcp;ofi_rxm}), and as in libfabric the core's name selects them too. {@code flags}: {@code Fi.FI_SOURCE}, {@code Fi.FI_NUMERICHOST},
     * {@code Fi.FI_PROV_ATTR_ONLY}.
     *
     * @param hints may be {@code null}
     * @throws FabricException {@link Errno#ENODATA} when nothing matches, with a message
     *         naming, for each provider, the first hint it could not meet
     */
    List<Info> getInfo(String node, String service, long flags, Info hints) throws FabricException;

    /** {@code fi_fabric}: opens a fabric of the provider named by {@code attr.provName()}. */
    Fabric fabric(FabricAttr attr, Object context) throws FabricException;

    /** {@code fi_info -l}: every provider known now, with version and state. */
    List<ProviderInfo> providers();

    void addListener(ProviderListener listener);

    void removeListener(ProviderListener listener);

    /**
     * The registry for a plain JVM: providers found through {@link java.util.ServiceLoader}; the
     * same object on every call.
     */
    static Fabrics standalone() {
        return StandaloneLookup.INSTANCE;
    }
}
