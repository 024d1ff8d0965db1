package io.jofi.provider.shm.ring;

import java.io.IOException;
import java.nio.file.Path;

/**
 * {@link ShmRegion#map} refused a region file; {@link #reason()} says which check failed and
 * the message says what exactly was wrong (docs/SHM-LAYOUT.md "Bad input, faults, security").
 */
public final class RegionRefusedException extends IOException {

    private static final long serialVersionUID = 1L;

    /** Why a region was refused. */
    public enum Reason {
        /** No region file of that name. */
        MISSING,
        /** Not a regular file, or readable/writable by group or others. */
        PERMISSIONS,
        /** The file (or its header) belongs to another user. */
        FOREIGN_OWNER,
        /** Wrong magic (not a region, or not yet initialised) or a truncated header. */
        NOT_A_REGION,
        /** Another layout version. */
        VERSION,
        /** Sizes out of range or not matching the file length. */
        SIZES,
        /** The owner process (pid, start time) is gone. */
        OWNER_DEAD,
        /** The owner closed the region or declared it failed. */
        CLOSED
    }

    private final transient Path path;
    private final Reason reason;

    /** @param path the region file, {@code reason} the failed check, {@code detail} what was seen */
    public RegionRefusedException(Path path, Reason reason, String detail) {
        super("shm region " + path + " refused (" + reason + "): " + detail);
        this.path = path;
        this.reason = reason;
    }

    /** @return the failed check */
    public Reason reason() {
        return reason;
    }

    /** @return the region file */
    public Path path() {
        return path;
    }
}
