package io.jofi.spi.util;

import io.jofi.spi.util.stats.CounterGroup;
import io.jofi.spi.util.stats.StatsCounter;
import io.jofi.spi.util.stats.StatsFile;
import io.jofi.spi.util.stats.StatsFileDescriptor;

/**
 * The live counters of one {@link ReceiveQueue}: unexpected messages and bytes queued, and
 * their high-water marks (the receives posted and the messages received are its endpoint's:
 * {@code EndpointCounters}, {@link ReceiveCompletion#countIn}). Written by the queue's one writer (the
 * provider's lock or progress thread, as every other queue state).
 */
final class ReceiveCounters {
    final CounterGroup group;
    final StatsCounter unexpected;
    final StatsCounter unexpectedBytes;
    final StatsCounter unexpectedHighWater;
    final StatsCounter unexpectedBytesHighWater;

    ReceiveCounters(Class<?> owner, String provider) {
        group = new CounterGroup(StatsFile.process(), StatsFileDescriptor.TYPE_RECEIVE_QUEUE,
                CounterGroup.providerOwnerLabel(provider, owner));
        unexpected = group.counter("unexpected messages queued");
        unexpectedBytes = group.counter("unexpected bytes queued");
        unexpectedHighWater = group.counter("unexpected messages high-water mark");
        unexpectedBytesHighWater = group.counter("unexpected bytes high-water mark");
    }

    /** One message queued unexpected; {@code count}/{@code bytes} are what is held now. */
    void queued(long footprint, int count, long bytes) {
        unexpected.increment();
        unexpectedBytes.add(footprint);
        unexpectedHighWater.max(count);
        unexpectedBytesHighWater.max(bytes);
    }
}
