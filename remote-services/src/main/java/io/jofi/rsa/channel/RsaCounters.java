package io.jofi.rsa.channel;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of what the channels refused, shared by every channel of a container; the
 * component publishes them as properties of its DistributionProvider service
 * ({@code io.jofi.rsa.refused.importers}, {@code io.jofi.rsa.refused.values},
 * {@code io.jofi.rsa.dropped.messages}).
 */
public final class RsaCounters {
    private final AtomicLong refusedImporters = new AtomicLong();
    private final AtomicLong refusedValues = new AtomicLong();
    private final AtomicLong droppedMessages = new AtomicLong();
    private volatile Runnable onChange = () -> { };

    /** Importers that failed the secret's proof (or came without one). */
    public long refusedImporters() {
        return refusedImporters.get();
    }

    /** Serialized arguments or results the filter refused. */
    public long refusedValues() {
        return refusedValues.get();
    }

    /** Messages from no known session, malformed, or of an unknown kind. */
    public long droppedMessages() {
        return droppedMessages.get();
    }

    public void onChange(Runnable listener) {
        this.onChange = listener;
    }

    void refusedImporter() {
        refusedImporters.incrementAndGet();
        onChange.run();
    }

    void refusedValue() {
        refusedValues.incrementAndGet();
        onChange.run();
    }

    void droppedMessage() {
        droppedMessages.incrementAndGet();
        onChange.run();
    }
}
