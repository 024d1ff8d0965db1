package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.AddrFormat;
import io.jofi.Domain;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API's defaults of {@link Domain#allocateBuffer} and {@link Domain#mapFile} (what every
 * provider without shared memory answers), through the util domain of a tiny provider.
 */
class DomainMemoryDefaultsTest {
    private final ProviderResources resources = new ProviderResources();
    private final UtilFabricDomainTest.TestFabric fabric = new UtilFabricDomainTest.TestFabric(resources);

    private Domain domain() throws FabricException {
        return fabric.domain(new Info().addrFormat(AddrFormat.SOCKADDR_IN), null);
    }

    private static void fails(int errno, Executable call) {
        FabricException e = assertThrows(FabricException.class, call);
        assertEquals(errno, e.errno(), e.getMessage());
    }

    /** allocateBuffer: a zeroed direct buffer of the size, position 0, that the domain registers. */
    @Test
    void allocateBufferIsADirectBufferThatRegisters() throws Exception {
        Domain d = domain();
        ByteBuffer b = d.allocateBuffer(100);
        assertTrue(b.isDirect());
        assertEquals(0, b.position());
        assertEquals(100, b.limit());
        assertEquals(100, b.capacity());
        for (int i = 0; i < 100; i++) {
            assertEquals(0, b.get(i));
        }
        MemoryRegion mr = d.register(b, Fi.FI_REMOTE_WRITE, 0, 5, 0, null);
        assertEquals(5, mr.key());
        mr.close();
        d.close();
    }

    /** allocateBuffer: sizes outside 1..Integer.MAX_VALUE are EINVAL. */
    @Test
    void allocateBufferRefusesBadSizes() throws Exception {
        Domain d = domain();
        fails(Errno.EINVAL, () -> d.allocateBuffer(0));
        fails(Errno.EINVAL, () -> d.allocateBuffer(-1));
        fails(Errno.EINVAL, () -> d.allocateBuffer(1L << 31));
        d.close();
    }

    /** mapFile: the range of the file, read-write: what is written through it reaches the file. */
    @Test
    void mapFileMapsTheRangeReadWrite(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("data.bin");
        Files.write(f, new byte[8192]);
        Domain d = domain();
        ByteBuffer b = d.mapFile(f, 4096, 4096);
        assertEquals(4096, b.capacity());
        b.put(10, (byte) 42);
        ((MappedByteBuffer) b).force();
        assertEquals(42, Files.readAllBytes(f)[4096 + 10]);
        assertEquals(8192, Files.size(f), "the file is not grown");
        d.close();
    }

    /** mapFile: null, negative offsets, bad sizes and ranges past the end are EINVAL; a missing file ENOENT. */
    @Test
    void mapFileRefusesBadArguments(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("small.bin");
        Files.write(f, new byte[100]);
        Domain d = domain();
        fails(Errno.EINVAL, () -> d.mapFile(null, 0, 10));
        fails(Errno.EINVAL, () -> d.mapFile(f, -1, 10));
        fails(Errno.EINVAL, () -> d.mapFile(f, 0, 0));
        fails(Errno.EINVAL, () -> d.mapFile(f, 50, 51));
        fails(Errno.ENOENT, () -> d.mapFile(tmp.resolve("missing.bin"), 0, 10));
        d.close();
    }
}
