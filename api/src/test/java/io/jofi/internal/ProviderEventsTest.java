package io.jofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Info;
import io.jofi.spi.FabricProvider;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry's flight-recorder event: a provider's arrival and departure are each one
 * {@code io.jofi.ProviderChange} with its name, version and direction; without a recording a
 * binding records nothing and builds no event.
 */
class ProviderEventsTest {
    @TempDir
    Path dir;

    @Test
    void aRecordingFindsTheArrivalAndTheDeparture() throws Exception {
        FabricsRegistry registry = new FabricsRegistry();
        FabricProvider provider = new NamedProvider("evtest");
        Path file = dir.resolve("events.jfr");
        try (Recording r = new Recording()) {
            r.enable("io.jofi.ProviderChange");
            r.start();
            registry.bindProvider(provider, Map.of());
            registry.unbindProvider(provider, Map.of());
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("io.jofi.ProviderChange")).toList();
        assertEquals(2, events.size(), events.toString());
        assertEquals("evtest", events.get(0).getString("provider"));
        assertEquals("3.1.4", events.get(0).getString("version"));
        assertTrue(events.get(0).getBoolean("arrived"));
        assertEquals("evtest", events.get(1).getString("provider"));
        assertTrue(!events.get(1).getBoolean("arrived"));
    }

    @Test
    void withoutARecordingAnEventAllocatesNothing() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(mx instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) mx;
        org.junit.jupiter.api.Assumptions.assumeTrue(bean.isThreadAllocatedMemorySupported());
        bean.setThreadAllocatedMemoryEnabled(true);
        for (int i = 0; i < 20_000; i++) {
            ProviderEvents.providerChange("tcp", "1", i % 2 == 0); // warm-up
        }
        long tid = Thread.currentThread().getId();
        long before = bean.getThreadAllocatedBytes(tid);
        for (int i = 0; i < 100_000; i++) {
            ProviderEvents.providerChange("tcp", "1", i % 2 == 0);
        }
        long allocated = bean.getThreadAllocatedBytes(tid) - before;
        // an event per call would be at least 16 B x 100 000; a few KiB may come from the JIT
        assertTrue(allocated < 100_000, allocated + " bytes allocated by 100 000 calls without a recording");
    }

    /** A provider that offers nothing: only its name and version matter here. */
    private static final class NamedProvider implements FabricProvider {
        private final String name;

        NamedProvider(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String version() {
            return "3.1.4";
        }

        @Override
        public List<Info> getInfo(String node, String service, long flags, Info hints) throws FabricException {
            throw new FabricException(Errno.ENODATA, name + ": offers nothing");
        }

        @Override
        public Fabric fabric(FabricAttr attr, Object context) throws FabricException {
            throw new FabricException(Errno.ENODATA, name + ": opens nothing");
        }
    }
}
