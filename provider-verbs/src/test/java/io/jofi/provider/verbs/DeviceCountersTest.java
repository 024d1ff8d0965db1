package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.spi.util.stats.StatsFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DeviceCounters} over a directory laid out as sysfs' {@code /sys/class/infiniband}
 * (this host has no RDMA device; in the VM {@code VerbsStatsConformanceTest} reads rxe0's real
 * files): the RNR files a port has become its counters, read when a domain attaches and then
 * at most once per refresh interval; a port without any has none; values never go down.
 */
class DeviceCountersTest {
    @TempDir
    Path root;

    private Path counters(String device, int port) throws Exception {
        Path dir = root.resolve(device).resolve("ports").resolve(Integer.toString(port)).resolve("hw_counters");
        Files.createDirectories(dir);
        return dir;
    }

    @Test
    void theRnrFilesOfAPortAreReadOnAttachAndAtMostOncePerInterval() throws Exception {
        Path dir = counters("rxe0", 1);
        Files.writeString(dir.resolve("rcvd_rnr_err"), "3\n");
        Files.writeString(dir.resolve("send_rnr_err"), "5\n");
        Files.writeString(dir.resolve("sent_pkts"), "1000\n"); // not an RNR counter: left out
        DeviceCounters d = new DeviceCounters(root, StatsFile.none());
        d.attach("rxe0", 1);
        String owner = DeviceCounters.ownerLabel("rxe0", 1);
        assertEquals(Map.of(owner + ": rcvd_rnr_err", 3L, owner + ": send_rnr_err", 5L), d.values("rxe0", 1));

        Files.writeString(dir.resolve("rcvd_rnr_err"), "7\n");
        long now = System.nanoTime();
        d.refreshIfDue(now);
        assertEquals(7L, d.values("rxe0", 1).get(owner + ": rcvd_rnr_err"), "the first refresh reads");
        Files.writeString(dir.resolve("rcvd_rnr_err"), "9\n");
        d.refreshIfDue(now + DeviceCounters.REFRESH_NANOS / 2);
        assertEquals(7L, d.values("rxe0", 1).get(owner + ": rcvd_rnr_err"), "not again within the interval");
        d.refreshIfDue(now + DeviceCounters.REFRESH_NANOS);
        assertEquals(9L, d.values("rxe0", 1).get(owner + ": rcvd_rnr_err"), "again after it");

        Files.writeString(dir.resolve("rcvd_rnr_err"), "0\n"); // a driver reset: the value does not go down
        d.refreshIfDue(now + 2 * DeviceCounters.REFRESH_NANOS);
        assertEquals(9L, d.values("rxe0", 1).get(owner + ": rcvd_rnr_err"));
    }

    @Test
    void aPortWithoutRnrCountersHasNoneAndTheLastDomainTakesThemAway() throws Exception {
        counters("siw0", 1);
        Files.writeString(counters("rxe0", 1).resolve("retry_rnr_exceeded_err"), "0\n");
        DeviceCounters d = new DeviceCounters(root, StatsFile.none());
        d.attach("siw0", 1);
        d.attach("mlx5_0", 1); // no sysfs directory at all
        assertTrue(d.values("siw0", 1).isEmpty(), "soft-iWARP has no RNR counters");
        assertTrue(d.values("mlx5_0", 1).isEmpty());
        d.attach("rxe0", 1);
        d.attach("rxe0", 1);
        d.detach("rxe0", 1);
        assertEquals(1, d.values("rxe0", 1).size(), "a domain still uses rxe0");
        d.detach("rxe0", 1);
        assertTrue(d.values("rxe0", 1).isEmpty(), "the last domain is gone");
    }
}
