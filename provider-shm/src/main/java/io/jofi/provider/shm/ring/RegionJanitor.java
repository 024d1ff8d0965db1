package io.jofi.provider.shm.ring;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/**
 * Removes the region files (and doorbell sockets) of dead owners from a directory (docs/SHM-LAYOUT.md "Bad input, faults, security": region files of dead processes left from earlier runs are cleaned at start). Only files
 * named {@code jofi-*.region}, regular, of this process's uid, with a valid magic and an owner
 * (pid, start time) that no longer runs are removed; anything else is left alone.
 */
public final class RegionJanitor {

    private RegionJanitor() {
    }

    /**
     * @param dir the region directory
     * @return the number of region files removed
     * @throws IOException when the directory cannot be listed
     */
    public static int clean(Path dir) throws IOException {
        final int selfUid = ProcessLiveness.selfUid();
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "jofi-*.region")) {
            for (Path file : files) {
                if (isDeadRegion(file, selfUid)) {
                    final String fileName = file.getFileName().toString();
                    final String name = fileName.substring("jofi-".length(), fileName.length() - ".region".length());
                    if (Files.deleteIfExists(file)) {
                        removed++;
                    }
                    Files.deleteIfExists(dir.resolve("jofi-" + name + ".bell"));
                }
            }
        }
        return removed;
    }

    /** @return whether {@code file} is a region of ours whose owner is dead */
    static boolean isDeadRegion(Path file, int selfUid) {
        try {
            final Map<String, Object> attributes =
                    Files.readAttributes(file, "unix:uid,isRegularFile", LinkOption.NOFOLLOW_LINKS);
            if (!Boolean.TRUE.equals(attributes.get("isRegularFile")) || (Integer) attributes.get("uid") != selfUid) {
                return false;
            }
            final ByteBuffer header = ByteBuffer.allocate(RegionDescriptor.OWNER_START_TIME_OFFSET + 8)
                    .order(ByteOrder.LITTLE_ENDIAN);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
                while (header.hasRemaining() && channel.read(header) > 0) {
                    // read the header prefix
                }
            }
            if (header.hasRemaining() || header.getLong(RegionDescriptor.MAGIC_OFFSET) != RegionDescriptor.MAGIC) {
                return false; // not (yet) a region: perhaps being created
            }
            return !ProcessLiveness.isAlive(header.getLong(RegionDescriptor.OWNER_PID_OFFSET),
                    header.getLong(RegionDescriptor.OWNER_START_TIME_OFFSET));
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            return false; // unreadable: not ours to judge
        }
    }
}
