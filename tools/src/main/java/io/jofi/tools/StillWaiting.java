package io.jofi.tools;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Says on stderr that a long control-path step of a command still runs — the client's connect, the
 * JIT warm-up, the first sync's wait for a peer that still warms up — once it has lasted
 * {@code firstMillis} and then every {@code intervalMillis}, from a daemon thread of its own, so that
 * no wait of the tools is silent for more than a couple of seconds. Never on the data path: a step is
 * wrapped once ({@code try (StillWaiting w = StillWaiting.start(...)) { step }}), and a step that ends
 * in time prints nothing.
 */
final class StillWaiting implements AutoCloseable {
    /** The first notice of a wait that was not announced before it began. */
    static final long FIRST_NOTICE_MILLIS = 2_000;
    /** Between two notices. */
    static final long INTERVAL_MILLIS = 5_000;

    private final Thread thread;

    private StillWaiting(Thread thread) {
        this.thread = thread;
    }

    /**
     * Starts the notices of one step: {@code line} (a format with one {@code %d}, the seconds the step
     * has lasted) on {@code err} after {@code firstMillis}, then every {@code intervalMillis}, until
     * {@link #close}.
     */
    static StillWaiting start(PrintStream err, String line, long firstMillis, long intervalMillis) {
        long started = System.nanoTime();
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(firstMillis);
                while (true) {
                    err.println(String.format(Locale.ROOT, line, (System.nanoTime() - started) / 1_000_000_000L));
                    Thread.sleep(intervalMillis);
                }
            } catch (InterruptedException e) {
                // the step ended: no more notices
            }
        }, "jofi-still-waiting");
        t.setDaemon(true);
        t.start();
        return new StillWaiting(t);
    }

    /** The step ended: no notice after this returns. */
    @Override
    public void close() {
        thread.interrupt();
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true; // finish the join: a notice must not follow the step's end
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
