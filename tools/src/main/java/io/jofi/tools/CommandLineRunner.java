package io.jofi.tools;

import io.jofi.Fabrics;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.FrameworkListener;
import org.osgi.framework.startlevel.FrameworkStartLevel;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Non-interactive mode of {@code ./jofi}: when the framework property (or system property)
 * {@value #COMMAND_PROPERTY} is set, waits until the framework has started (so every
 * provider is registered), runs that command line once, and exits the JVM with the
 * command's status. Without the property it does nothing.
 *
 * <p>It exits with {@link System#exit} rather than by stopping the framework, because the
 * launcher's own status for a stopped framework (117) cannot carry the command's status; the
 * launcher's shutdown hook still stops the framework cleanly.
 */
@Component(immediate = true)
public class CommandLineRunner {
    /** The command line to run: see {@link CommandLineArgs} for the encoding. */
    public static final String COMMAND_PROPERTY = "jofi.command";

    private static final long STARTUP_TIMEOUT_SECONDS = 120;
    private static final AtomicBoolean RAN = new AtomicBoolean();

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile Fabrics fabrics;

    @Activate
    void activate(BundleContext context) {
        String encoded = context.getProperty(COMMAND_PROPERTY);
        if (encoded == null || !RAN.compareAndSet(false, true)) {
            return;
        }
        Thread runner = new Thread(() -> runAndExit(context, CommandLineArgs.decode(encoded)), "jofi-command");
        runner.setDaemon(true);
        runner.start();
    }

    private void runAndExit(BundleContext context, List<String> argv) {
        int status;
        try {
            awaitFrameworkStarted(context);
            status = argv.isEmpty()
                    ? Commands.run("", argv, context(context))
                    : Commands.run(argv.get(0), argv.subList(1, argv.size()), context(context));
        } catch (InterruptedException e) {
            System.err.println("jofi: interrupted");
            status = ExitStatus.FAILURE;
        } catch (RuntimeException | Error e) {
            System.err.println("jofi: " + Commands.reason(e));
            status = ExitStatus.FAILURE;
        }
        System.out.flush();
        System.err.flush();
        System.exit(status);
    }

    private CommandContext context(BundleContext context) {
        return new CommandContext(fabrics, context, System.out, System.err);
    }

    /** Until {@link FrameworkEvent#STARTED}, or the framework is at its beginning start level. */
    private static void awaitFrameworkStarted(BundleContext context) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        FrameworkListener listener = event -> {
            if (event.getType() == FrameworkEvent.STARTED) {
                started.countDown();
            }
        };
        context.addFrameworkListener(listener);
        try {
            if (isStarted(context)) {
                started.countDown();
            }
            started.await(STARTUP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } finally {
            context.removeFrameworkListener(listener);
        }
    }

    private static boolean isStarted(BundleContext context) {
        Bundle system = context.getBundle(Constants.SYSTEM_BUNDLE_LOCATION);
        String beginning = context.getProperty(Constants.FRAMEWORK_BEGINNING_STARTLEVEL);
        int target = beginning == null ? 1 : Integer.parseInt(beginning.trim());
        return system.getState() == Bundle.ACTIVE
                && system.adapt(FrameworkStartLevel.class).getStartLevel() >= target;
    }
}
