package io.jofi.provider.shm.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Region files: creation (mode 0600), mapping by a peer, the refusals of {@link ShmRegion#map}. */
class ShmRegionTest {

    static final RegionSizes SMALL = new RegionSizes(4096, 128, 4);

    @TempDir
    Path dir;

    @Test
    void ownerCreatesPeerMapsAndBothSeeTheSameRing() throws Exception {
        try (ShmRegion owner = ShmRegion.create(dir, "a", SMALL);
             ShmRegion peer = ShmRegion.map(dir, "a")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(owner.path())));
            assertEquals(SMALL, peer.sizes());
            assertEquals(ProcessLiveness.selfPid(), peer.ownerPid());
            assertTrue(peer.isOwnerAlive());
            assertFalse(peer.isOwner());
            int index = peer.ring().claim(3, 9, 0, 8);
            peer.ring().buffer().putLong(index + RingDescriptor.HEADER_LENGTH, 42L);
            peer.ring().publish(index);
            long[] got = new long[1];
            assertEquals(1, owner.ring().read((type, sender, aux, buffer, offset, length) -> {
                got[0] = buffer.getLong(offset);
                return RecordHandler.CONTINUE;
            }, 10));
            assertEquals(42L, got[0]);
            int slot = peer.bounceSlots().acquire(1);
            assertEquals(1, owner.bounceSlots().holder(slot));
        }
        assertFalse(Files.exists(ShmRegion.regionPath(dir, "a")), "owner's close deletes the file");
    }

    @Test
    void existingNameIsNotReused() throws Exception {
        try (ShmRegion owner = ShmRegion.create(dir, "a", SMALL)) {
            assertThrows(java.nio.file.FileAlreadyExistsException.class, () -> ShmRegion.create(dir, "a", SMALL));
        }
    }

    @Test
    void missingRegionIsRefused() {
        RegionRefusedException e = assertThrows(RegionRefusedException.class, () -> ShmRegion.map(dir, "nobody"));
        assertEquals(RegionRefusedException.Reason.MISSING, e.reason());
    }
}
