package io.jofi.rsa;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Picks the fabric provider an importer uses for an endpoint: the one the importer's settings
 * force, else shm when exporter and importer share a host and both have it, else the first of
 * the importer's available providers (getInfo's order) that the exporter offers — never shm
 * across hosts.
 */
final class TransportChoice {
    private TransportChoice() {
    }

    /** {@code provider=address} strings to a map in the exporter's order. */
    static Map<String, String> addresses(Object property) {
        Map<String, String> map = new LinkedHashMap<>();
        if (property instanceof String[] list) {
            for (String entry : list) {
                int eq = entry.indexOf('=');
                if (eq > 0) {
                    map.put(entry.substring(0, eq), entry.substring(eq + 1));
                }
            }
        } else if (property instanceof java.util.Collection<?> list) {
            return addresses(list.stream().map(String::valueOf).toArray(String[]::new));
        } else if (property instanceof String single) {
            return addresses(new String[] {single});
        }
        return map;
    }

    /**
     * The provider to import over, or {@code null} when none fits.
     *
     * @param offered the exporter's provider to address map
     * @param sameHost whether the exporter's host identity equals ours
     * @param forced the importer's forced provider, or null
     * @param available the importer's providers, best first
     */
    static String choose(Map<String, String> offered, boolean sameHost, String forced, List<String> available) {
        if (forced != null) {
            return offered.containsKey(forced) && available.contains(forced) && (sameHost || !"shm".equals(forced))
                    ? forced : null;
        }
        if (sameHost && offered.containsKey("shm") && available.contains("shm")) {
            return "shm";
        }
        for (String provider : available) {
            if (offered.containsKey(provider) && (sameHost || !"shm".equals(provider))) {
                return provider;
            }
        }
        return null;
    }
}
