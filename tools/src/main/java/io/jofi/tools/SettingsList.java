package io.jofi.tools;

import io.jofi.ProviderInfo;
import io.jofi.spi.FabricProvider;
import io.jofi.spi.util.AbstractFabricProvider;
import io.jofi.spi.util.ProviderSetting;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * {@code jofi info -e} / {@code -g SUBSTR}: every setting of every registered provider, as
 * {@code fi_info -e} lists libfabric's variables, one line each:
 * <pre># jofi.tcp.keepAliveIdle: Integer (default: 5; current: 5): Seconds of idleness ...</pre>
 * The settings come from the providers themselves ({@link AbstractFabricProvider#settings()}:
 * the property type, the value in effect, the metatype's description).
 */
final class SettingsList {
    private SettingsList() {
    }

    /** The line of one setting. */
    static String line(ProviderSetting s) {
        return "# " + s.name() + ": " + s.type() + " (default: " + s.defaultValue() + "; current: " + s.value() + ")"
                + (s.description().isEmpty() ? "" : ": " + s.description());
    }

    /**
     * Prints the settings of the providers in {@code registered} (only {@code provider} when not
     * null), whose names contain {@code substring} (ignoring case) when it is not null.
     */
    static void print(List<ProviderInfo> registered, String provider, String substring, BundleContext context,
                      PrintStream out) {
        Set<String> names = registered.stream().map(ProviderInfo::name)
                .filter(n -> provider == null || n.equals(provider)).collect(Collectors.toSet());
        String wanted = substring == null ? null : substring.toLowerCase(Locale.ROOT);
        ProviderSetting example = null;
        for (ProviderSetting s : settings(names, context)) {
            if (wanted == null || s.name().toLowerCase(Locale.ROOT).contains(wanted)) {
                out.println(line(s));
                example = example == null ? s : example;
            }
        }
        if (example != null) {
            out.println(HOW_TO_SET.replace("{name}", example.name()).replace("{value}", example.defaultValue().replace("\"", ""))
                    .replace("{pid}", "io.jofi.provider." + example.name().split("\\.")[1])
                    .replace("{key}", example.name().substring(example.name().lastIndexOf('.') + 1)));
        }
    }

    /** The last line of the list: how a setting is set, with one of those listed as the example. */
    static final String HOW_TO_SET = "# to set one: -D{name}={value} in the JVM (./jofi: JOFI_JAVA_OPTS='-D{name}={value}' ./jofi ...),"
            + " or in OSGi Configuration Admin's PID {pid}, property {key}";

    /**
     * The settings of the named providers, sorted by name: in OSGi those of the registered
     * {@code FabricProvider} services (the configuration in effect); in a plain JVM those of
     * the providers {@link ServiceLoader} finds (their settings come from the system
     * properties, as those of the registry's own instances).
     */
    private static List<ProviderSetting> settings(Set<String> names, BundleContext context) {
        List<ProviderSetting> out = new ArrayList<>();
        if (context == null) {
            for (FabricProvider p : ServiceLoader.load(FabricProvider.class, SettingsList.class.getClassLoader())) {
                add(p, names, out);
            }
        } else {
            Collection<ServiceReference<FabricProvider>> refs;
            try {
                refs = context.getServiceReferences(FabricProvider.class, null);
            } catch (InvalidSyntaxException e) {
                throw new IllegalStateException(e); // no filter given
            }
            for (ServiceReference<FabricProvider> ref : refs) {
                FabricProvider p = context.getService(ref);
                if (p != null) {
                    try {
                        add(p, names, out);
                    } finally {
                        context.ungetService(ref);
                    }
                }
            }
        }
        out.sort(Comparator.comparing(ProviderSetting::name));
        return out;
    }

    private static void add(FabricProvider p, Set<String> names, List<ProviderSetting> out) {
        if (names.contains(p.name()) && p instanceof AbstractFabricProvider a) {
            out.addAll(a.settings());
        }
    }
}
