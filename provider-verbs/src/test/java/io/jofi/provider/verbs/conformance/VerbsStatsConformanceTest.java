package io.jofi.provider.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.conformance.StatsConformance;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;

/**
 * Runs {@link StatsConformance} against verbs (the VM stage: soft-RoCE rxe0, soft-iWARP siw0):
 * {@code jofi stat}, in a JVM of its own, reads a child JVM's verbs counters. The sender is an
 * rxm endpoint over verbs MSG endpoints, as tcp's: it connects to the receiver and to the
 * victim, loses the victim's connection when the victim is killed (rdma_cm DISCONNECTED), and
 * its next connect to the victim is rejected (nobody listens): two peers declared failed. The
 * verbs MSG endpoints under it count the same connections, their empty CQ polls and no RNR
 * retry exceeded; the device's RNR counters are there where the driver has them (rxe).
 */
@Timeout(300) // the kit's 120 s: in the TCG VM its four JVMs take 60-70 s, twice that on a loaded host
class VerbsStatsConformanceTest extends StatsConformance {
    private static final Path SYSFS = Path.of("/sys/class/infiniband");

    @BeforeEach
    void verbsAvailable() {
        VerbsAvailable.assume();
    }

    @Override
    protected String provider() {
        return "verbs";
    }

    /**
     * verbs' own endpoints are the MSG endpoints under rxm: the two ends of the sender's
     * connection to the receiver, the one to the victim, and the one of the rejected connect.
     */
    @Override
    protected long endpointsOpened() {
        return 4;
    }

    @Override
    protected Map<String, Long> senderConnectionCounters() {
        return RXM_SENDER_COUNTERS;
    }

    @Override
    protected Map<String, Integer> senderEvents() {
        return RXM_SENDER_EVENTS;
    }

    /**
     * The MSG endpoints under rxm that live at the end of the mix, the two ends of the
     * receiver's connection: one connection made each, none lost or refused (rxm closes the
     * victim's and the refused endpoint, and their counters go with them: rxm's counters above
     * hold those, VerbsTransportCountersTest checks an MSG endpoint's own); their CQs were
     * polled empty; no RNR retry was exceeded (rnr_retry 7 retries for ever). Each RNR file of
     * the device ports' sysfs {@code hw_counters} is a counter, at most what the file says now.
     */
    @Override
    protected void checkTransportCounters(Map<String, Long> values) {
        String ep = "verbs/VerbsEndpoint ";
        assertEquals(2, sum(values, ep, ": connections made"), "MSG connections made in " + values);
        assertEquals(0, sum(values, ep, ": connections lost"), "MSG connections lost");
        assertEquals(0, sum(values, ep, ": connects refused"), "MSG connects refused");
        assertEquals(0, sum(values, ep, ": RNR retries exceeded"));
        assertTrue(sum(values, ep, ": empty CQ polls") > 0, "the MSG endpoints' CQs were polled empty");
        for (Path f : rnrFiles()) {
            String device = f.getName(f.getNameCount() - 5).toString();
            String port = f.getName(f.getNameCount() - 3).toString();
            String label = "verbs/" + device + " port " + port + " hw_counters: " + f.getFileName();
            Long v = values.get(label);
            assertTrue(v != null, label + " in jofi stat: " + values.keySet());
            long now = read(f);
            assertTrue(v >= 0 && v <= now, label + " = " + v + ", the file says " + now);
        }
    }

    /**
     * The RNR counter files of this machine's RDMA ports (none on siw), by their paths under
     * each device's entry (sysfs links back from a device to its class: no walk that follows links).
     */
    private static List<Path> rnrFiles() {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> devices = Files.isDirectory(SYSFS) ? Files.list(SYSFS) : Stream.empty()) {
            for (Path device : devices.toList()) {
                Path ports = device.resolve("ports");
                if (!Files.isDirectory(ports)) {
                    continue;
                }
                try (Stream<Path> ps = Files.list(ports)) {
                    for (Path port : ps.toList()) {
                        for (String name : List.of("rcvd_rnr_err", "send_rnr_err", "retry_rnr_exceeded_err",
                                "rnr_nak_retry_err")) {
                            Path f = port.resolve("hw_counters").resolve(name);
                            if (Files.isReadable(f)) {
                                files.add(f);
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return files;
    }

    private static long read(Path f) {
        try {
            return Long.parseLong(Files.readString(f).trim());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
