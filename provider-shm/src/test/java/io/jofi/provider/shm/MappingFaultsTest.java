package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The probe itself ({@link MappingFaults#readable}): it reads a mapping's last
 * {@value MappingFaults#PROBE_BYTES} bytes (or all of a shorter one), tells a truncated file
 * from a whole one, and is not fooled by a mapping whose last word holds the sentinel. The
 * fault a truncated probe leaves pending is raised and taken here, so it cannot surface later.
 */
class MappingFaultsTest {
    private Path dir;

    @BeforeEach
    void makeDir() throws IOException {
        Path shm = Path.of("/dev/shm");
        dir = Files.isDirectory(shm) ? Files.createTempDirectory(shm, "mapping-faults-")
                : Files.createTempDirectory("mapping-faults-");
    }

    @AfterEach
    void removeDir() throws IOException {
        ShmCrossProcessTest.deleteTree(dir);
    }

    // 4096: a whole page; 100: not a multiple of the probe; 16 and 8: shorter than it
    @ParameterizedTest
    @ValueSource(ints = {4096, 8192, 100, 16, 8})
    void aTruncatedMappingIsUnreadableAWholeOneReadable(int length) throws IOException {
        Path file = dir.resolve("m" + length);
        MappedByteBuffer mapping = map(file, length);
        ByteBuffer scratch = MappingFaults.newScratch();
        assertTrue(MappingFaults.readable(mapping, scratch), "the whole mapping");
        // the last word holds the sentinel: the probe's second marker tells it from a fault
        mapping.order(ByteOrder.nativeOrder()).putLong(length - Long.BYTES, MappingFaults.SENTINEL);
        assertTrue(MappingFaults.readable(mapping, scratch), "a mapping ending in the sentinel");
        mapping.putLong(length - Long.BYTES, ~MappingFaults.SENTINEL);
        assertTrue(MappingFaults.readable(mapping, scratch), "a mapping ending in the second marker");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(0);
        }
        // Compiled, the probe answers false and the fault waits for raise(); run by the
        // interpreter, the JVM may throw the fault as the probe returns. Either is a detection.
        InternalError fault;
        try {
            assertFalse(MappingFaults.readable(mapping, scratch), "the truncated mapping");
            fault = MappingFaults.raise();
        } catch (InternalError e) {
            fault = e;
        }
        assertTrue(MappingFaults.isFault(fault), "the truncation's fault: " + fault);
        assertNull(MappingFaults.deliverPending(), "no second fault pending");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 4, 7})
    void aMappingShorterThanAWordIsNotProbed(int length) throws IOException {
        Path file = dir.resolve("s" + length);
        MappedByteBuffer mapping = map(file, length);
        assertTrue(MappingFaults.readable(mapping, MappingFaults.newScratch()));
    }

    private static MappedByteBuffer map(Path file, int length) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            ch.truncate(length);
            ch.write(ByteBuffer.wrap(new byte[] {1}), Math.max(0, length - 1));
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, length);
        }
    }
}
