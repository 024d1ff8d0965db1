package io.jofi.tools;

import io.jofi.ProviderInfo;
import io.jofi.ProviderState;
import java.io.PrintStream;
import java.util.List;

/** Prints the provider list the way {@code fi_info -l} does, with each provider's state. */
final class ProviderList {
    /** Why there is no provider at all. */
    static final String NONE_REASON = "no provider bundle is installed and started";

    private ProviderList() {
    }

    static void print(List<ProviderInfo> providers, PrintStream out) {
        if (providers.isEmpty()) {
            out.println("no providers installed (" + NONE_REASON + ")");
            return;
        }
        for (ProviderInfo p : providers) {
            out.println(p.name() + ":");
            out.println("    version: " + p.version());
            out.println("    state: " + state(p));
        }
    }

    private static String state(ProviderInfo p) {
        if (p.state() == ProviderState.AVAILABLE) {
            return "available";
        }
        return p.reason() == null ? "unavailable" : "unavailable (" + p.reason() + ")";
    }
}
