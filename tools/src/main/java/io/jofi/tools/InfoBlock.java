package io.jofi.tools;

import io.jofi.Fi;
import io.jofi.Info;

/**
 * One info as {@code fi_info} prints it by default: a block of {@code provider}, then indented
 * {@code fabric}, {@code domain}, {@code version}, {@code type} and {@code protocol} — and
 * {@code caps}, which fi_info leaves out but which tells apart infos that differ only in their
 * capabilities (shm offers its RDM info with and without {@code FI_SOURCE_ERR}).
 */
final class InfoBlock {
    /** The keys of {@link Info#toShortString()} after the first, in its order. */
    private static final String[] KEYS = {"fabric", "domain", "version", "type", "protocol"};

    private InfoBlock() {
    }

    /**
     * The block of {@code info}, lines ending in {@code \n}. The values are those of
     * {@link Info#toShortString()} (one formatting of attributes, the api's), one per line.
     */
    static String of(Info info) {
        String line = info.toShortString();
        for (String key : KEYS) {
            line = line.replace(", " + key + ": ", "\n    " + key + ": ");
        }
        return line + "\n    caps: " + Fi.capsToString(info.caps()).replace(" | ", "|") + "\n";
    }
}
