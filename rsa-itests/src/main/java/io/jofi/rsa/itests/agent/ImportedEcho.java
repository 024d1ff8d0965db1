package io.jofi.rsa.itests.agent;

import org.osgi.framework.BundleContext;
import org.osgi.framework.Filter;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTracker;

import io.jofi.rsa.itests.echo.EchoService;

/** Tracks the echo service this container imported (a proxy registered with {@code service.imported}). */
final class ImportedEcho {
    private final ServiceTracker<EchoService, EchoService> tracker;

    ImportedEcho(BundleContext context) {
        Filter imported;
        try {
            imported = FrameworkUtil.createFilter("(&(objectClass=" + EchoService.class.getName() + ")(service.imported=*))");
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        tracker = new ServiceTracker<>(context, imported, null);
        tracker.open();
    }

    /** {@code imported MILLIS}: waits for the imported proxy; answers its configs and endpoint id. */
    String awaitImported(String[] arguments) throws InterruptedException {
        long millis = Long.parseLong(arguments[0]);
        if (tracker.waitForService(millis) == null) {
            throw new IllegalStateException("no imported " + EchoService.class.getSimpleName() + " within " + millis + " ms");
        }
        ServiceReference<EchoService> reference = tracker.getServiceReference();
        return "configs=" + text(reference.getProperty("service.imported.configs"))
                + " endpoint=" + reference.getProperty("endpoint.id");
    }

    /** The imported proxy now; an error if there is none (no call is made without one). */
    EchoService current() {
        EchoService echo = tracker.getService();
        if (echo == null) {
            throw new IllegalStateException("no imported " + EchoService.class.getSimpleName());
        }
        return echo;
    }

    private static String text(Object value) {
        if (value instanceof String[]) {
            return String.join(",", (String[]) value);
        }
        return String.valueOf(value);
    }
}
