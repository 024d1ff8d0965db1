package io.jofi.tools;

import io.jofi.ProviderInfo;
import io.jofi.ProviderState;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * Prints the provider list the way {@code fi_info -l} does, with each provider's state, and after
 * them the provider bundles that are installed but stopped (in a framework).
 */
final class ProviderList {
    /** Why there is no provider at all. */
    static final String NONE_REASON = "no provider bundle is installed and started";

    private ProviderList() {
    }

    static void print(List<ProviderInfo> providers, BundleContext context, PrintStream out) {
        Map<String, Bundle> stopped = context == null ? Map.of()
                : ProviderBundles.stopped(context, providers.stream().map(ProviderInfo::name).collect(Collectors.toSet()));
        if (providers.isEmpty() && stopped.isEmpty()) {
            out.println("no providers installed (" + NONE_REASON + ")");
            return;
        }
        for (ProviderInfo p : providers) {
            out.println(p.name() + ":");
            out.println("    version: " + p.version());
            out.println("    state: " + state(p));
        }
        for (Map.Entry<String, Bundle> e : stopped.entrySet()) {
            out.println(e.getKey() + ":");
            out.println("    state: stopped (bundle " + e.getValue().getSymbolicName() + " is "
                    + ProviderBundles.stateName(e.getValue()) + "; 'jofi providers start " + e.getKey() + "' starts it)");
        }
    }

    private static String state(ProviderInfo p) {
        if (p.state() == ProviderState.AVAILABLE) {
            return "available";
        }
        return p.reason() == null ? "unavailable" : "unavailable (" + p.reason() + ")";
    }
}
