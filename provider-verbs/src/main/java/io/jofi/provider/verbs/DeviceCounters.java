package io.jofi.provider.verbs;

import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.StatsCounter;
import io.jofi.spi.util.stats.StatsFile;
import io.jofi.spi.util.stats.StatsFileDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The device's own receiver-not-ready counters, copied from the kernel's port
 * {@code hw_counters} in sysfs ({@code /sys/class/infiniband/<dev>/ports/<port>/hw_counters/})
 * into the counters file as a group per device port ({@code verbs/rxe0 port 1 hw_counters:
 * rcvd_rnr_err}) while a domain uses it. Which files exist is the driver's choice: soft-RoCE
 * (rxe) has {@code rcvd_rnr_err}, {@code send_rnr_err} and {@code retry_rnr_exceeded_err},
 * mlx5 {@code rnr_nak_retry_err}, soft-iWARP none (no RNR on iWARP) — a port without any has
 * no group. The values are the device's, since it came up (every process on it), not this
 * process's.
 *
 * <p>Read off the data path only: when a domain attaches the port, and by the connection-
 * management threads ({@link CmChannel}) at most once per {@link #REFRESH_NANOS}; this
 * object's monitor lets one writer at a time store them. A value never goes down
 * ({@link StatsCounter#max}: a driver's reset shows as no change until it passes the old value).
 */
final class DeviceCounters {
    /** The RNR counters looked for, by the names drivers give their {@code hw_counters} files. */
    static final List<String> RNR_FILES = List.of("rcvd_rnr_err", "send_rnr_err", "retry_rnr_exceeded_err",
            "rnr_nak_retry_err");
    /** How often the counters are read at most. */
    static final long REFRESH_NANOS = 1_000_000_000L;

    /** One device port's counters (none: no group) and the domains that use it. */
    private static final class Port {
        CounterGroup group;
        final List<Path> files = new ArrayList<>();
        final List<StatsCounter> counters = new ArrayList<>();
        int users;
    }

    private final Path classRoot;
    private final StatsFile file;
    private final Map<String, Port> ports = new HashMap<>();
    private long refreshedAtNanos;
    private boolean refreshed;

    /**
     * @param classRoot the sysfs class directory ({@code /sys/class/infiniband})
     * @param file      where the counters live
     */
    DeviceCounters(Path classRoot, StatsFile file) {
        this.classRoot = classRoot;
        this.file = file;
    }

    /** A domain uses {@code port} of {@code device}: its counters are in the file from now on (read now). */
    synchronized void attach(String device, int port) {
        String key = key(device, port);
        Port p = ports.get(key);
        if (p == null) {
            p = open(device, port);
            ports.put(key, p);
        }
        p.users++;
        read(p);
    }

    /** A domain no longer uses it: the last one takes the group out of the file. */
    synchronized void detach(String device, int port) {
        String key = key(device, port);
        Port p = ports.get(key);
        if (p != null && --p.users == 0) {
            ports.remove(key);
            if (p.group != null) {
                p.group.close();
            }
        }
    }

    /** Reads every attached port's counters, when the last read is {@link #REFRESH_NANOS} ago. */
    synchronized void refreshIfDue(long nowNanos) {
        if (ports.isEmpty() || refreshed && nowNanos - refreshedAtNanos < REFRESH_NANOS) {
            return;
        }
        refreshed = true;
        refreshedAtNanos = nowNanos;
        for (Port p : ports.values()) {
            read(p);
        }
    }

    /** The counters of {@code port} of {@code device} (labels to values), empty when it has none or is not attached. */
    synchronized Map<String, Long> values(String device, int port) {
        Map<String, Long> m = new HashMap<>();
        Port p = ports.get(key(device, port));
        if (p != null) {
            for (StatsCounter c : p.counters) {
                m.put(c.label(), c.get());
            }
        }
        return m;
    }

    private Port open(String device, int port) {
        Path dir = classRoot.resolve(device).resolve("ports").resolve(Integer.toString(port)).resolve("hw_counters");
        Port p = new Port();
        for (String name : RNR_FILES) {
            Path f = dir.resolve(name);
            if (Files.isReadable(f)) {
                if (p.group == null) {
                    p.group = new CounterGroup(file, StatsFileDescriptor.TYPE_OTHER, ownerLabel(device, port));
                }
                p.files.add(f);
                p.counters.add(p.group.counter(name));
            }
        }
        return p;
    }

    private static void read(Port p) {
        for (int i = 0; i < p.files.size(); i++) {
            try {
                p.counters.get(i).max(Long.parseLong(Files.readString(p.files.get(i)).trim()));
            } catch (IOException | NumberFormatException e) {
                // a driver that stopped offering it (device gone): the value stays as last read
            }
        }
    }

    /** The label prefix of a port's group: {@code verbs/rxe0 port 1 hw_counters}. */
    static String ownerLabel(String device, int port) {
        return "verbs/" + key(device, port) + " hw_counters";
    }

    private static String key(String device, int port) {
        return device + " port " + port;
    }
}
