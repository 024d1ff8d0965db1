package io.jofi.spi;

import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Info;
import io.jofi.ProviderState;
import java.util.List;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * The one service a provider bundle registers (and, for plain JVMs, lists in
 * {@code META-INF/services}). Applications never see it: the {@link io.jofi.Fabrics}
 * registry tracks these services, asks each in {@code getInfo}, and opens fabrics through
 * them.
 *
 * <p>A provider whose service goes away must shut down everything it opened before the
 * unregistration returns (R15): pending operations complete with {@code ECANCELED},
 * connected endpoints get {@code FI_SHUTDOWN}, queues stay readable, further calls answer
 * {@code ENODEV}, and no thread of the provider survives. {@code io.jofi.spi.util.ProviderResources}
 * (the io.jofi.util bundle) does the bookkeeping.
 */
@ConsumerType
public interface FabricProvider {
    /** The provider name: {@code tcp}, {@code shm}, {@code verbs}, ... */
    String name();

    /** The provider version, for people ({@code fi_info -l}). */
    String version();

    /** Whether the provider can work here (e.g. verbs without a device cannot). */
    default ProviderState state() {
        return ProviderState.AVAILABLE;
    }

    /** Why the provider is {@link ProviderState#UNAVAILABLE}; {@code null} when available. */
    default String unavailableReason() {
        return null;
    }

    /**
     * The provider's part of {@code fi_getinfo}: the infos that meet {@code hints}
     * ({@code null} = no hints), best first, with {@code fabricAttr().provName()} set to
     * {@link #name()}. {@code io.jofi.spi.util.InfoMatcher} (the io.jofi.util bundle) implements
     * libfabric's matching.
     *
     * @throws io.jofi.FabricException {@code ENODATA} with a message naming the first hint
     *         that could not be met; other errnos for bad node/service
     */
    List<Info> getInfo(String node, String service, long flags, Info hints) throws FabricException;

    /** {@code fi_fabric}: opens a fabric described by one of this provider's infos. */
    Fabric fabric(FabricAttr attr, Object context) throws FabricException;
}
