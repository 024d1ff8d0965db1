package io.jofi.itests;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.wiring.FrameworkWiring;

/** Small framework helpers of the itests; every wait is bounded. */
final class Osgi {
    private Osgi() {
    }

    /** The installed bundle with this symbolic name. */
    static Bundle bundle(BundleContext context, String bsn) {
        for (Bundle b : context.getBundles()) {
            if (bsn.equals(b.getSymbolicName())) {
                return b;
            }
        }
        throw new AssertionError("bundle " + bsn + " is not installed");
    }

    /** Refreshes {@code bundles} and waits (at most 10 s) until the framework says it is done. */
    static void refresh(BundleContext context, Collection<Bundle> bundles) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        FrameworkWiring wiring = context.getBundle(0).adapt(FrameworkWiring.class);
        wiring.refreshBundles(bundles, event -> {
            if (event.getType() == FrameworkEvent.PACKAGES_REFRESHED) {
                done.countDown();
            }
        });
        if (!done.await(10, TimeUnit.SECONDS)) {
            throw new AssertionError("refreshBundles did not finish within 10 s");
        }
    }

    /** The names of the live threads whose name starts with {@code prefix}. */
    static List<String> threads(String prefix) {
        List<String> names = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith(prefix)) {
                names.add(t.getName());
            }
        }
        return names;
    }

    /**
     * Runs {@code System.gc()} until {@code ref} is cleared, for at most 10 s.
     *
     * @return whether it was cleared
     */
    static boolean collected(WeakReference<?> ref) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ref.get() != null && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(50);
        }
        return ref.get() == null;
    }
}
