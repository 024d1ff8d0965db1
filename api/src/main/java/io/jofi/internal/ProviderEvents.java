package io.jofi.internal;

/**
 * Records the registry's flight-recorder event, {@code io.jofi.ProviderChange}, where
 * {@code jdk.jfr} is there to record with: the api bundle imports it optionally, and a
 * recording that finds JFR's generated classes out of reach turns the event off once, with a
 * warning, rather than break the provider's binding. The provider toolkit's events
 * (connections, peers, queues) are {@code io.jofi.spi.util.stats.FabricEvents}, in the util
 * bundle, which the api bundle does not depend on.
 */
final class ProviderEvents {
    private static final System.Logger LOG = System.getLogger(ProviderEvents.class.getName());

    /** False in an OSGi framework that does not export {@code jdk.jfr} to the api bundle. */
    private static boolean jfr = jfrAvailable();

    private ProviderEvents() {
    }

    private static boolean jfrAvailable() {
        try {
            Class.forName("jdk.jfr.Event", false, ProviderEvents.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** The provider {@code name} arrived ({@code arrived}) or departed. */
    static void providerChange(String name, String version, boolean arrived) {
        if (jfr) {
            try {
                ProviderChangeEvent.record(name, version, arrived);
            } catch (LinkageError e) {
                jfr = false;
                LOG.log(System.Logger.Level.WARNING, "JOFI's provider events are off: " + e + " (in an OSGi"
                        + " framework, add jdk.jfr.* to org.osgi.framework.bootdelegation; cnf/jofi.bndrun does)");
            }
        }
    }
}
