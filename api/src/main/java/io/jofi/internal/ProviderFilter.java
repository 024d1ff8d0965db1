package io.jofi.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * libfabric's {@code FI_PROVIDER} syntax: a comma-separated list of provider names that are
 * used, or, with a leading {@code ^}, that are excluded (the {@code ^} applies to the whole
 * list). Names compare case-insensitively; a layered name such as {@code "tcp;ofi_rxm"} is one
 * name, which a listed core or layer name selects too ({@link #acceptsLayered}). An unset or blank
 * spec accepts every provider.
 */
final class ProviderFilter {
    /** The system property read first. */
    static final String PROPERTY = "jofi.provider";
    /** The environment variable read when the property is not set. */
    static final String ENV = "FI_PROVIDER";

    private static final ProviderFilter ALL = new ProviderFilter(null, null, false, List.of());

    private final String source;
    private final String spec;
    private final boolean exclude;
    private final List<String> names;

    private ProviderFilter(String source, String spec, boolean exclude, List<String> names) {
        this.source = source;
        this.spec = spec;
        this.exclude = exclude;
        this.names = names;
    }

    /** The filter in force now: {@code jofi.provider}, else {@code FI_PROVIDER}, else none. */
    static ProviderFilter current() {
        String p = System.getProperty(PROPERTY);
        if (p != null) {
            return parse(PROPERTY, p);
        }
        String e = System.getenv(ENV);
        return e == null ? ALL : parse(ENV, e);
    }

    /**
     * Parses a spec.
     *
     * @param source where the spec came from, for messages ({@code jofi.provider} or
     *               {@code FI_PROVIDER})
     */
    static ProviderFilter parse(String source, String spec) {
        String s = spec.trim();
        boolean exclude = s.startsWith("^");
        if (exclude) {
            s = s.substring(1);
        }
        List<String> names = new ArrayList<>();
        for (String n : s.split(",")) {
            String t = n.trim();
            if (!t.isEmpty()) {
                names.add(t.toLowerCase(Locale.ROOT));
            }
        }
        if (names.isEmpty()) {
            return ALL;
        }
        return new ProviderFilter(source, spec.trim(), exclude, List.copyOf(names));
    }

    /** Whether the named provider may be used. */
    boolean accepts(String provider) {
        if (names.isEmpty()) {
            return true;
        }
        boolean listed = provider != null && names.contains(provider.toLowerCase(Locale.ROOT));
        return exclude != listed;
    }

    /**
     * Whether the layered pairing {@code core;layer} may be used: where a name lists the pairing,
     * its core or its layer (libfabric's {@code FI_PROVIDER=tcp} selects {@code tcp;ofi_rxm} too),
     * or, with {@code ^}, where none does.
     */
    boolean acceptsLayered(String core, String layer) {
        if (names.isEmpty()) {
            return true;
        }
        boolean listed = names.contains((core + ";" + layer).toLowerCase(Locale.ROOT))
                || names.contains(core.toLowerCase(Locale.ROOT)) || names.contains(layer.toLowerCase(Locale.ROOT));
        return exclude != listed;
    }

    /** Why a provider is left out: {@code excluded by jofi.provider=^tcp}. */
    String exclusionReason() {
        return "excluded by " + source + "=" + spec;
    }
}
