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

    /** Maps "a" after {@code corrupt} changed its file; returns the refusal. */
    RegionRefusedException refusedAfter(java.util.function.Consumer<java.nio.ByteBuffer> corrupt) throws Exception {
        try (ShmRegion owner = ShmRegion.create(dir, "a", SMALL)) {
            corrupt.accept(owner.mapping());
            return assertThrows(RegionRefusedException.class, () -> ShmRegion.map(dir, "a"));
        }
    }

    @Test
    void badMagicIsRefused() throws Exception {
        assertEquals(RegionRefusedException.Reason.NOT_A_REGION,
                refusedAfter(b -> b.putLong(RegionDescriptor.MAGIC_OFFSET, 0x1234)).reason());
    }

    @Test
    void otherLayoutVersionIsRefused() throws Exception {
        RegionRefusedException e = refusedAfter(b -> b.putInt(RegionDescriptor.VERSION_OFFSET, 2));
        assertEquals(RegionRefusedException.Reason.VERSION, e.reason());
        assertTrue(e.getMessage().contains("layout version 2"), e.getMessage());
    }

    @Test
    void sizesOutOfRangeAreRefused() throws Exception {
        assertEquals(RegionRefusedException.Reason.SIZES,
                refusedAfter(b -> b.putInt(RegionDescriptor.RING_CAPACITY_OFFSET, 5000)).reason());
        assertEquals(RegionRefusedException.Reason.SIZES,
                refusedAfter(b -> b.putInt(RegionDescriptor.SLOT_SIZE_OFFSET, 100)).reason());
        assertEquals(RegionRefusedException.Reason.SIZES,
                refusedAfter(b -> b.putInt(RegionDescriptor.SLOT_COUNT_OFFSET, -1)).reason());
    }

    @Test
    void sizesThatDoNotFitTheFileAreRefused() throws Exception {
        // Valid sizes, but larger than the file: mapping them would read beyond the mapping.
        RegionRefusedException e = refusedAfter(b -> {
            b.putInt(RegionDescriptor.RING_CAPACITY_OFFSET, 1 << 20);
            b.putLong(RegionDescriptor.FILE_LENGTH_OFFSET, RegionDescriptor.fileLength(1 << 20, 128, 4));
        });
        assertEquals(RegionRefusedException.Reason.SIZES, e.reason());
        assertEquals(RegionRefusedException.Reason.SIZES,
                refusedAfter(b -> b.putInt(RegionDescriptor.HEADER_LENGTH_OFFSET, 64)).reason());
        assertEquals(RegionRefusedException.Reason.SIZES,
                refusedAfter(b -> b.putLong(RegionDescriptor.FILE_LENGTH_OFFSET, 1L << 40)).reason());
    }

    @Test
    void deadOwnerInTheHeaderIsRefused() throws Exception {
        assertEquals(RegionRefusedException.Reason.OWNER_DEAD,
                refusedAfter(b -> b.putLong(RegionDescriptor.OWNER_START_TIME_OFFSET,
                        ProcessLiveness.selfStartTime() + 1)).reason(), "same pid, other start time: pid reused");
        assertEquals(RegionRefusedException.Reason.OWNER_DEAD,
                refusedAfter(b -> b.putLong(RegionDescriptor.OWNER_PID_OFFSET, Integer.MAX_VALUE)).reason());
    }

    @Test
    void closedOrFailedRegionIsRefused() throws Exception {
        assertEquals(RegionRefusedException.Reason.CLOSED,
                refusedAfter(b -> b.putInt(RegionDescriptor.STATE_OFFSET, RegionDescriptor.STATE_FAILED)).reason());
        assertEquals(RegionRefusedException.Reason.CLOSED,
                refusedAfter(b -> b.putInt(RegionDescriptor.STATE_OFFSET, 0)).reason());
    }

    @Test
    void headerUidOtherThanTheFileOwnerIsRefused() throws Exception {
        assertEquals(RegionRefusedException.Reason.FOREIGN_OWNER,
                refusedAfter(b -> b.putInt(RegionDescriptor.OWNER_UID_OFFSET, 4242)).reason());
    }

    @Test
    void regionOfAnotherUserIsRefused() throws Exception {
        int self = ProcessLiveness.selfUid();
        try (ShmRegion owner = ShmRegion.create(dir, "a", SMALL)) {
            // Root can give the file away; anyone else cannot create another user's file.
            org.junit.jupiter.api.Assumptions.assumeTrue(self == 0, "needs root to chown");
            Files.setAttribute(owner.path(), "unix:uid", 4242);
            RegionRefusedException e = assertThrows(RegionRefusedException.class, () -> ShmRegion.map(dir, "a"));
            assertEquals(RegionRefusedException.Reason.FOREIGN_OWNER, e.reason());
            assertTrue(e.getMessage().contains("uid 4242"), e.getMessage());
            assertEquals(0, RegionJanitor.clean(dir), "the janitor leaves other users' files alone");
        }
    }

    @Test
    void groupOrOtherPermissionIsRefused() throws Exception {
        try (ShmRegion owner = ShmRegion.create(dir, "a", SMALL)) {
            Files.setPosixFilePermissions(owner.path(), PosixFilePermissions.fromString("rw-r--r--"));
            RegionRefusedException e = assertThrows(RegionRefusedException.class, () -> ShmRegion.map(dir, "a"));
            assertEquals(RegionRefusedException.Reason.PERMISSIONS, e.reason());
        }
    }

    @Test
    void symlinkIsRefused() throws Exception {
        try (ShmRegion owner = ShmRegion.create(dir, "a", SMALL)) {
            Files.createSymbolicLink(ShmRegion.regionPath(dir, "b"), owner.path());
            RegionRefusedException e = assertThrows(RegionRefusedException.class, () -> ShmRegion.map(dir, "b"));
            assertEquals(RegionRefusedException.Reason.PERMISSIONS, e.reason());
        }
    }

    @Test
    void truncatedFileIsRefused() throws Exception {
        Path file = ShmRegion.regionPath(dir, "t");
        Files.write(file, new byte[100]);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        assertEquals(RegionRefusedException.Reason.NOT_A_REGION,
                assertThrows(RegionRefusedException.class, () -> ShmRegion.map(dir, "t")).reason());
        Files.write(file, new byte[8192]);
        assertEquals(RegionRefusedException.Reason.NOT_A_REGION,
                assertThrows(RegionRefusedException.class, () -> ShmRegion.map(dir, "t")).reason());
        assertEquals(0, RegionJanitor.clean(dir), "no magic: not the janitor's to judge");
    }

    @Test
    void namesThatCouldLeaveTheDirectoryAreRefused() {
        for (String name : new String[] {"", "../x", "a/b", ".hidden", "x".repeat(65), "a b", null}) {
            assertThrows(IllegalArgumentException.class, () -> ShmRegion.create(dir, name, SMALL), String.valueOf(name));
            assertThrows(IllegalArgumentException.class, () -> ShmRegion.map(dir, name), String.valueOf(name));
        }
        ShmRegion.checkName("ep-1234.5_x");
    }

    @Test
    void invalidSizesAreRefusedAtConstruction() {
        assertThrows(IllegalArgumentException.class, () -> new RegionSizes(1000, 64, 1));
        assertThrows(IllegalArgumentException.class, () -> new RegionSizes(4096, 65, 1));
        assertThrows(IllegalArgumentException.class, () -> new RegionSizes(4096, 64, -1));
        assertThrows(IllegalArgumentException.class, () -> new RegionSizes(1 << 30, 1 << 24, 1 << 16));
    }

    @Test
    void layoutOffsetsArePaddedAndTheFileLengthAddsUp() {
        assertEquals(0, RegionDescriptor.TAIL_OFFSET % RegionDescriptor.PAD);
        assertEquals(RegionDescriptor.PAD, RegionDescriptor.HEAD_OFFSET - RegionDescriptor.TAIL_OFFSET);
        assertEquals(RegionDescriptor.PAD, RegionDescriptor.TAIL_OFFSET - RegionDescriptor.SLEEPING_OFFSET);
        assertEquals(4096, RegionDescriptor.headerLength(4));
        assertEquals(8192, RegionDescriptor.headerLength(1000));
        assertEquals(4096 + 4096 + 4 * 128, SMALL.fileLength());
    }
}
