package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.StatsCounter;
import io.jofi.spi.util.stats.StatsFile;
import io.jofi.spi.util.stats.StatsFileDescriptor;
import java.util.HashMap;
import java.util.Map;

/**
 * The live counters of one {@link UtilEndpoint}: the operations it posted, by kind, with the
 * bytes of its sends and RMA, and the posts the provider refused with {@code -EAGAIN}
 * (back-pressure); and, per provider, the endpoints opened and closed. A plain load and a
 * release store per counter, two counters per accepted send or RMA.
 *
 * <p><b>One writer.</b> Several threads may post on one endpoint at once
 * ({@code FI_THREAD_SAFE}): counted after the funnel returned, two of them could lose an
 * update. A provider whose funnels take a lock therefore counts inside it
 * ({@link UtilEndpoint#countPostsUnderLock()}, then {@link #send}, {@link #receive},
 * {@link #rma}, {@link #atomic} with the funnel's answer, before the lock is released); for
 * the others the endpoint counts after the funnel, exact when one thread posts at a time.
 */
public final class EndpointCounters {
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
    final StatsCounter sendBytes;
    final StatsCounter taggedSendBytes;
    final StatsCounter readBytes;
    final StatsCounter writeBytes;
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
        sendBytes = group.counter("send bytes posted");
        taggedSendBytes = group.counter("tagged send bytes posted");
        readBytes = group.counter("RMA read bytes posted");
        writeBytes = group.counter("RMA write bytes posted");
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

    /**
     * Counts a send's answer {@code rc} and, when accepted, its {@code length} bytes (under the
     * lock that serialises the endpoint's posts); returns it.
     */
    public int send(int rc, boolean tagged, long length) {
        return count(rc, tagged ? taggedSends : sends, tagged ? taggedSendBytes : sendBytes, length);
    }

    /** Counts a receive's answer {@code rc} (under the lock that serialises the endpoint's posts); returns it. */
    public int receive(int rc, boolean tagged) {
        return count(rc, tagged ? taggedReceives : receives);
    }

    /**
     * Counts an RMA's answer {@code rc} and, when accepted, its {@code length} bytes (under the
     * lock that serialises the endpoint's posts); returns it.
     */
    public int rma(int rc, boolean read, long length) {
        return count(rc, read ? reads : writes, read ? readBytes : writeBytes, length);
    }

    /** Counts an atomic's answer {@code rc} (under the lock that serialises the endpoint's posts); returns it. */
    public int atomic(int rc) {
        return count(rc, atomics);
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

    /** As {@link #count(int, StatsCounter)}, an accepted post's {@code length} added to {@code bytes}. */
    int count(int rc, StatsCounter posted, StatsCounter bytes, long length) {
        if (rc == 0) {
            posted.increment();
            bytes.add(length);
        } else if (rc == -Errno.EAGAIN) {
            eagain.increment();
        }
        return rc;
    }

    /** The endpoint's counter group (its receive side counts what it received there too). */
    public CounterGroup group() {
        return group;
    }

    /** The endpoint was closed: its counters go, the provider's closed count rises. */
    void closed() {
        group.close();
        synchronized (EndpointCounters.class) {
            provider[1].increment();
        }
    }
}
