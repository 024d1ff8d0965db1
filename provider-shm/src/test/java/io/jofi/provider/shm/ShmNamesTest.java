package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Errno;
import io.jofi.FabricException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Addresses and names: {@code fi_shm://<name>} with a NUL, names that can never be a path,
 * the AV's resolver ({@code insertSvc}, insert validation) and the files derived from a name.
 */
class ShmNamesTest {
    @Test
    void addressIsTheSchemeTheNameAndANul() {
        byte[] a = ShmNames.address("12-3-4");
        assertArrayEquals("fi_shm://12-3-4\0".getBytes(StandardCharsets.US_ASCII), a);
        assertEquals("12-3-4", ShmNames.nameOf(a));
        assertEquals("12-3-4", ShmNames.nameOf("fi_shm://12-3-4".getBytes(StandardCharsets.US_ASCII)), "NUL optional");
    }

    @Test
    void namesThatCouldBePathsOrOtherSchemesAreRefused() {
        for (String bad : new String[] {"fi_shm://", "fi_shm://../x", "fi_shm://a/b", "fi_shm://.hidden",
                "fi_shm://-x", "fi_tcp://1-2-3", "fi_shm://" + "a".repeat(65), "fi_shm://a b", "fi_shm://é"}) {
            assertNull(ShmNames.nameOf(bad.getBytes(StandardCharsets.UTF_8)), bad);
        }
        assertNull(ShmNames.nameOf(null));
    }

    @Test
    void endpointNamesAndTheirFiles() {
        assertTrue(ShmNames.isEndpointName("4711-1-2"));
        assertFalse(ShmNames.isEndpointName("conformance-peer-1"));
        assertFalse(ShmNames.isEndpointName("4711-1"));
        assertEquals(4711, ShmNames.pidOf("4711-1-2"));
        assertEquals(4711, ShmNames.pidOf("jofi-4711-1.mr"));
        assertEquals(-1, ShmNames.pidOf("jofi-x-1.mr"));
        assertEquals("jofi-4711-1.mr", ShmNames.tableOf("4711-1-2"));
        assertEquals((1L << 32) | 2, ShmRecordDescriptor.seqOf("4711-1-2"));
        assertEquals("4711-1-2", ShmRecordDescriptor.name(4711, (1L << 32) | 2));
    }

    @Test
    void resolverTakesAddressesAndBareNames() throws FabricException {
        ShmAddressResolver r = new ShmAddressResolver();
        assertArrayEquals(ShmNames.address("1-2-3"), r.resolve("fi_shm://1-2-3", null));
        assertArrayEquals(ShmNames.address("1-2-3"), r.resolve("1-2-3", null));
        FabricException e = assertThrows(FabricException.class, () -> r.resolve("../etc", null));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("../etc"), e.getMessage());
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> r.resolve("1-2-3", "80")).errno());
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> r.resolve(null, null)).errno());
        assertEquals(0, r.validate(ShmNames.address("1-2-3")));
        assertEquals(-Errno.EINVAL, r.validate("fi_shm://a/b\0".getBytes(StandardCharsets.US_ASCII)));
    }
}
