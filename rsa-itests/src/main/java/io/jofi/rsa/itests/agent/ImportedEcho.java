package io.jofi.rsa.itests.agent;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.osgi.framework.BundleContext;
import org.osgi.framework.Filter;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTracker;

import io.jofi.rsa.itests.echo.EchoService;

/**
 * Tracks the echo service this container imported (a proxy registered with
 * {@code service.imported}), or, where several are imported, the one whose {@code bench.contender}
 * property names a transport.
 */
final class ImportedEcho {
    private final BundleContext context;
    private final ServiceTracker<EchoService, EchoService> tracker;
    private final Map<String, ServiceTracker<EchoService, EchoService>> contenders = new ConcurrentHashMap<>();

    ImportedEcho(BundleContext context) {
        this.context = context;
        this.tracker = track("");
    }

    /** The proxy exported with {@code bench.contender=NAME}. */
    EchoService contender(String name, long millis) throws InterruptedException {
        ServiceTracker<EchoService, EchoService> chosen = contenders.computeIfAbsent(name, key -> track("(bench.contender=" + key + ")"));
        EchoService echo = chosen.waitForService(millis);
        if (echo == null) {
            throw new IllegalStateException("no imported " + EchoService.class.getSimpleName() + " with bench.contender=" + name);
        }
        return echo;
    }

    private ServiceTracker<EchoService, EchoService> track(String extra) {
        Filter imported;
        try {
            imported = FrameworkUtil.createFilter("(&(objectClass=" + EchoService.class.getName() + ")(service.imported=*)" + extra + ")");
        } catch (InvalidSyntaxException e) {
            throw new IllegalArgumentException(e);
        }
        ServiceTracker<EchoService, EchoService> opened = new ServiceTracker<>(context, imported, null);
        opened.open();
        return opened;
    }

    /**
     * {@code imported MILLIS [CONTENDER]}: waits for the imported proxy (of one benchmark
     * contender); answers its configs and endpoint id.
     */
    String awaitImported(String[] arguments) throws InterruptedException {
        long millis = Long.parseLong(arguments[0]);
        if (arguments.length > 1) {
            contender(arguments[1], millis);
            return "contender=" + arguments[1];
        }
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
