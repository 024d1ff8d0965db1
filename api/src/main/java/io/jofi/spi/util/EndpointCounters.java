package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.StatsCounter;
import io.jofi.spi.util.stats.StatsFile;
import io.jofi.spi.util.stats.StatsFileDescriptor;
import java.util.HashMap;
import java.util.Map;

/**
 * The live counters of one {@link UtilEndpoint}: the operations it posted, by kind, and the
 * posts the provider refused with {@code -EAGAIN} (back-pressure); and, per provider, the
 * endpoints opened and closed. Written by the posting thread after the provider's funnel
 * returned (one plain load and one release store each).
 */
final class EndpointCounters {
    /** Per provider: endpoints opened and closed (control path, under the class's lock). */
    private static final Map<String, StatsCounter[]> PROVIDERS = new HashMap<>();

    final CounterGroup group;
    final StatsCounter sends;
    final StatsCounter taggedSends;
    final StatsCounter receives;
    final StatsCounter taggedReceives;
    final StatsCounter reads;
    final StatsCounter writes;
    final StatsCounter atomics;
    final StatsCounter eagain;
    private final StatsCounter[] provider;

    EndpointCounters(Class<?> endpointClass, String statsProvider) {
        StatsFile file = StatsFile.process();
        group = new CounterGroup(file, StatsFileDescriptor.TYPE_ENDPOINT, CounterGroup.providerOwnerLabel(statsProvider, endpointClass));
        sends = group.counter("sends posted");
        taggedSends = group.counter("tagged sends posted");
        receives = group.counter("receives posted");
        taggedReceives = group.counter("tagged receives posted");
        reads = group.counter("RMA reads posted");
        writes = group.counter("RMA writes posted");
        atomics = group.counter("atomics posted");
        eagain = group.counter("posts refused -EAGAIN");
        provider = providerCounters(file, endpointClass);
        synchronized (EndpointCounters.class) {
            provider[0].increment();
        }
    }

    /** The provider's group (made once, kept while the JVM runs): its endpoints opened and closed. */
    private static synchronized StatsCounter[] providerCounters(StatsFile file, Class<?> endpointClass) {
        String pkg = endpointClass.getPackageName();
        String name = pkg.substring(pkg.lastIndexOf('.') + 1);
        return PROVIDERS.computeIfAbsent(name, n -> {
            CounterGroup g = new CounterGroup(file, StatsFileDescriptor.TYPE_PROVIDER, n);
            return new StatsCounter[] {g.counter("endpoints opened"), g.counter("endpoints closed")};
        });
    }

    /** Counts a post's answer: {@code posted} when accepted, the back-pressure counter on {@code -EAGAIN}. */
    int count(int rc, StatsCounter posted) {
        if (rc == 0) {
            posted.increment();
        } else if (rc == -Errno.EAGAIN) {
            eagain.increment();
        }
        return rc;
    }

    /** The endpoint was closed: its counters go, the provider's closed count rises. */
    void closed() {
        group.close();
        synchronized (EndpointCounters.class) {
            provider[1].increment();
        }
    }
}
