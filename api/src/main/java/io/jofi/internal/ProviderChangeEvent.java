package io.jofi.internal;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * The flight-recorder event of a provider's arrival in or departure from the registry (R15),
 * and the only class of the api bundle that touches {@code jdk.jfr} types in its code, so that
 * {@link ProviderEvents} loads and answers where the runtime does not offer {@code jdk.jfr}.
 */
@Name("io.jofi.ProviderChange")
@Label("JOFI Provider Arrival or Departure")
@Category({"JOFI", "Providers"})
@Description("A provider arrived in (arrived true) or departed from the Fabrics registry")
final class ProviderChangeEvent extends Event {
    /** Never committed, only asked whether the type is enabled (thread-safe, no allocation). */
    private static final ProviderChangeEvent PROBE = new ProviderChangeEvent();

    @Label("Provider")
    String provider;
    @Label("Version")
    String version;
    @Label("Arrived")
    boolean arrived;

    /** Commits one event when a recording takes them; builds nothing otherwise. */
    static void record(String name, String version, boolean arrived) {
        if (PROBE.isEnabled()) {
            ProviderChangeEvent e = new ProviderChangeEvent();
            e.provider = name;
            e.version = version;
            e.arrived = arrived;
            e.commit();
        }
    }
}
