package io.jofi.provider.shm;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.provider.shm.ring.ShmRegion;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;

/**
 * A name an application chose for an endpoint ({@code FI_SOURCE} with {@code fi_shm://N} or a
 * service, README "Endpoint names"): the symbolic link {@code <dir>/jofi-<N>.name} pointing to
 * the endpoint's region file {@code jofi-<canonical>.region}.
 *
 * <p>Why a link and not a region file named N: records identify their sender by pid and
 * sequence ({@link ShmRecordDescriptor}), from which a receiver derives the canonical name
 * {@code <pid>-<domain>-<endpoint>} of the sender's region. Keeping the region under its
 * canonical name and resolving N to it once, when a peer is first addressed by N, makes both
 * ways of reaching the endpoint (by N from an AV, by pid and sequence from its records) the
 * same peer. The link is only an index: the region it names is checked by
 * {@link ShmRegion#map} like any other.
 *
 * <p>Claiming is exclusive: the link is created with one atomic {@code symlink(2)}; an existing
 * link whose region is live and READY makes the claim fail with {@code EADDRINUSE}; a stale one
 * (region gone, closed, or its owner dead) is removed and the claim tried once more. A name of
 * the provider's own form ({@link ShmNames#whyNotOwnName}: one this process made) is also in use
 * while its own region is live.
 */
final class ShmAlias {
    private static final String SUFFIX = ".name";

    private ShmAlias() {
    }

    /** The link's file name for the chosen name {@code alias}. */
    static String fileOf(String alias) {
        return "jofi-" + alias + SUFFIX;
    }

    /**
     * Makes {@code alias} name the endpoint whose region is {@code canonical}.
     *
     * @throws FabricException {@code EADDRINUSE} when a live endpoint holds the name (or a file of
     *         that name is not a link of this user), {@code EIO} when the link cannot be made
     */
    static void claim(Path dir, String alias, String canonical) throws FabricException {
        Path link = dir.resolve(fileOf(alias));
        Path target = Path.of(ShmNames.regionFile(canonical)); // relative: the same directory
        if (ShmNames.isEndpointName(alias) && live(dir, alias)) {
            throw new FabricException(Errno.EADDRINUSE, "enable: the shm name '" + alias + "' is in use (the endpoint"
                    + " the provider gave it to is still open; close it first)");
        }
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                Files.createSymbolicLink(link, target);
                return;
            } catch (FileAlreadyExistsException e) {
                String holder = holder(dir, link);
                if (holder != null) {
                    throw new FabricException(Errno.EADDRINUSE, "enable: the shm name '" + alias + "' is in use ("
                            + link + " " + holder + ")");
                }
                try {
                    Files.deleteIfExists(link); // stale: its endpoint is gone
                } catch (IOException d) {
                    throw new FabricException(Errno.EIO, "enable: cannot remove the stale name " + link + ": "
                            + d.getMessage(), d);
                }
            } catch (IOException | UnsupportedOperationException e) {
                throw new FabricException(Errno.EIO, "enable: cannot create the name " + link + ": " + e.getMessage(), e);
            }
        }
        throw new FabricException(Errno.EADDRINUSE, "enable: the shm name '" + alias
                + "' was claimed by another endpoint at the same time (" + link + ")");
    }

    /**
     * Who holds an existing name: a description when it is in use (a live endpoint, or a file
     * that is not this user's link and so not ours to remove), null when it is stale.
     */
    private static String holder(Path dir, Path link) {
        try {
            Map<String, Object> a = Files.readAttributes(link, "unix:uid,isSymbolicLink", LinkOption.NOFOLLOW_LINKS);
            if (!Boolean.TRUE.equals(a.get("isSymbolicLink")) || !a.get("uid").equals(selfUid())) {
                return "exists and is not a name link of this user; remove it by hand";
            }
        } catch (IOException e) {
            return null; // vanished meanwhile: free
        }
        String canonical = resolve(dir, link);
        if (canonical == null) {
            return null; // points at nothing an endpoint could own
        }
        return live(dir, canonical) ? "names the live endpoint " + ShmNames.SCHEME + canonical : null;
    }

    /** Whether the region {@code canonical} maps: present, READY, its owner alive. */
    private static boolean live(Path dir, String canonical) {
        try {
            ShmRegion live = ShmRegion.map(dir, canonical); // refused: missing, closed, owner dead
            live.close();
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The canonical name {@code alias} stands for, or null when there is no such link of this
     * user pointing at a canonical region name (then {@code alias} is taken as a region name
     * itself).
     */
    static String resolve(Path dir, String alias) {
        Path link = dir.resolve(fileOf(alias));
        try {
            Object uid = Files.getAttribute(link, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (!uid.equals(selfUid())) {
                return null;
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return resolve(dir, link);
    }

    private static String resolve(Path dir, Path link) {
        try {
            Path target = Files.readSymbolicLink(link);
            if (target.getNameCount() != 1) {
                return null;
            }
            String file = target.toString();
            if (!file.startsWith("jofi-") || !file.endsWith(".region")) {
                return null;
            }
            String canonical = file.substring(5, file.length() - ".region".length());
            return ShmNames.isEndpointName(canonical) ? canonical : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Removes {@code alias} if it still names {@code canonical} (close, departure). */
    static void release(Path dir, String alias, String canonical) {
        Path link = dir.resolve(fileOf(alias));
        if (canonical.equals(resolve(dir, link))) {
            try {
                Files.deleteIfExists(link);
            } catch (IOException e) {
                // the directory became unwritable: the next claim finds the link stale
            }
        }
    }

    private static Object selfUid() throws IOException {
        return Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }
}
