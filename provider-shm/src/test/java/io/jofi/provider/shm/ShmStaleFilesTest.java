package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Progress;
import io.jofi.provider.shm.ring.ProcessLiveness;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What other processes leave in the region directory: a chosen name's link of an endpoint
 * whose process was killed ({@code kill -9}: nothing closed it) goes when the next process
 * opens a domain there, as dead processes' region files do (before: it stayed for good); a
 * file squatting on the name of a buffer {@code allocateBuffer} makes is reported as what it
 * is ({@code EEXIST}, before: {@code ENOMEM}) and left alone (before: deleted).
 */
@Timeout(60)
class ShmStaleFilesTest {

    @Test
    void aKilledNamedEndpointsLinkIsRemovedAtTheNextStart() throws Exception {
        Path dir = freshDirectory("shmstale-");
        try {
            Path link = dir.resolve("jofi-stale-one.name");
            try (ChildPeer child = new ChildPeer(dir, "AUTO", "stale-one")) {
                assertEquals(ShmNames.SCHEME + "stale-one", child.name());
                assertTrue(Files.isSymbolicLink(link), "the chosen name's link");
                child.kill();
            }
            assertTrue(Files.exists(link, LinkOption.NOFOLLOW_LINKS), "kill -9 left the link behind");
            // a live process's link in the same directory stays
            try (ChildPeer live = new ChildPeer(dir, "AUTO", "alive-one")) {
                // the next process to open a domain here (a fresh directory for this JVM's janitor)
                try (ShmTestBed next = new ShmTestBed(dir, Progress.MANUAL)) {
                    assertFalse(Files.exists(link, LinkOption.NOFOLLOW_LINKS), "the dead endpoint's link is removed");
                    assertTrue(Files.isSymbolicLink(dir.resolve("jofi-alive-one.name")), "a live endpoint's link stays");
                }
                live.send("quit");
            }
        } finally {
            ShmCrossProcessTest.deleteTree(dir);
        }
    }

    @Test
    void aSquattedBufferFileIsReportedAsSuchAndLeftAlone() throws Exception {
        Path dir = freshDirectory("shmsquat-");
        try (ShmTestBed bed = new ShmTestBed(dir, Progress.MANUAL)) {
            // the next buffer's name: jofi-<pid>-<domain>.buf1 (another process of this user put a file there)
            String table = ShmNames.tableOf(bed.name().substring(ShmNames.SCHEME.length()));
            Path squat = dir.resolve(table.replace(".mr", ".buf1"));
            Files.writeString(squat, "not yours");
            FabricException e = assertThrows(FabricException.class, () -> bed.domain.allocateBuffer(4096));
            assertEquals(Errno.EEXIST, e.errno(), "the real cause: " + e.getMessage());
            assertTrue(e.getMessage().contains(squat.toString()), "the message names the file: " + e.getMessage());
            assertEquals("not yours", Files.readString(squat), "someone else's file is left alone");
            ByteBuffer next = bed.domain.allocateBuffer(4096);
            assertEquals(4096, next.capacity(), "the next buffer takes the next name");
        } finally {
            ShmCrossProcessTest.deleteTree(dir);
        }
    }

    private static Path freshDirectory(String prefix) throws Exception {
        Path base = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        assertTrue(ProcessLiveness.selfPid() > 0);
        return Files.createTempDirectory(base, prefix);
    }
}
