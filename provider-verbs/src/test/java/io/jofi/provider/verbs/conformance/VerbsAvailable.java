package io.jofi.provider.verbs.conformance;

import io.jofi.Fabrics;
import io.jofi.ProviderInfo;
import io.jofi.ProviderState;
import org.junit.jupiter.api.Assumptions;

/**
 * The gate of the verbs conformance subclasses: on a machine without an active RDMA port
 * (this one, CI) every suite is skipped with the reason "verbs unavailable: …"; in the
 * soft-RoCE VM (provider-verbs/vm) they run.
 */
final class VerbsAvailable {
    private VerbsAvailable() {
    }

    /** Skips the running test unless the verbs provider is available. */
    static void assume() {
        ProviderInfo verbs = Fabrics.standalone().providers().stream()
                .filter(p -> p.name().equals("verbs")).findFirst().orElse(null);
        Assumptions.assumeTrue(verbs != null, "verbs unavailable: the provider is not registered");
        Assumptions.assumeTrue(verbs.state() == ProviderState.AVAILABLE, "verbs unavailable: " + verbs.reason());
    }
}
