package io.jofi.itests;

import io.jofi.ProviderInfo;
import io.jofi.ProviderListener;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ProviderListener} that records what it hears, as {@code "added NAME"} and
 * {@code "removed NAME"}, in order, for the tests to take with a bounded wait.
 */
final class RecordingListener implements ProviderListener {
    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();

    @Override
    public void providerAdded(ProviderInfo provider) {
        events.add("added " + provider.name());
    }

    @Override
    public void providerRemoved(ProviderInfo provider) {
        events.add("removed " + provider.name());
    }

    /**
     * The next event about provider {@code name} (events about other providers are skipped),
     * waiting at most 10 s; {@code null} when none came.
     */
    String next(String name) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            String event = events.poll(left, TimeUnit.NANOSECONDS);
            if (event == null) {
                return null;
            }
            if (event.endsWith(" " + name)) {
                return event;
            }
        }
    }

    /** Everything heard and not yet taken. */
    String pending() {
        return events.toString();
    }
}
