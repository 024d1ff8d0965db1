package io.jofi.internal;

/**
 * A {@code prov_name} of {@code fi_getinfo} hints as libfabric reads it for layered providers: one
 * name ({@code tcp} selects that core and every layer over it, {@code ofi_rxm} that layer over every
 * core) or a pairing {@code core;layer} ({@code tcp;ofi_rxm} selects that pairing only).
 */
final class HintedName {
    private final String core;
    private final String layer;
    private final String single;

    private HintedName(String core, String layer, String single) {
        this.core = core;
        this.layer = layer;
        this.single = single;
    }

    /** The hinted name; {@code null} (admitting everything) for none or a blank one. */
    static HintedName parse(String provName) {
        if (provName == null || provName.isBlank()) {
            return null;
        }
        String s = provName.trim();
        int semi = s.indexOf(';');
        if (semi < 0) {
            return new HintedName(null, null, s);
        }
        // libfabric compares the rightmost layer of a longer chain
        return new HintedName(s.substring(0, semi).trim(), s.substring(s.lastIndexOf(';') + 1).trim(), null);
    }

    /** Whether a core provider's own infos are admitted: only when named alone. */
    boolean admitsCore(String name) {
        return single != null && single.equalsIgnoreCase(name);
    }

    /** Whether {@code layerName} over {@code coreName} is admitted. */
    boolean admitsPair(String coreName, String layerName) {
        if (single != null) {
            return single.equalsIgnoreCase(coreName) || single.equalsIgnoreCase(layerName);
        }
        return core.equalsIgnoreCase(coreName) && layer.equalsIgnoreCase(layerName);
    }

    @Override
    public String toString() {
        return single != null ? single : core + ";" + layer;
    }
}
