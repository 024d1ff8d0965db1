package io.jofi.rsa.itests.agent;

import java.io.File;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/** Stops, starts, installs and lists the container's bundles, and stops the container itself. */
final class BundleCommands {
    private final BundleContext context;

    BundleCommands(BundleContext context) {
        this.context = context;
    }

    String stop(String[] arguments) throws BundleException {
        bundle(arguments[0]).stop();
        return "";
    }

    String start(String[] arguments) throws BundleException {
        bundle(arguments[0]).start();
        return "";
    }

    /** Installs and starts the bundle in the file {@code arguments[0]}; answers its symbolic name. */
    String install(String[] arguments) throws BundleException {
        Bundle installed = context.installBundle(new File(arguments[0]).toURI().toString());
        installed.start();
        return installed.getSymbolicName();
    }

    String list() {
        StringBuilder text = new StringBuilder();
        for (Bundle bundle : context.getBundles()) {
            text.append(bundle.getSymbolicName()).append('=').append(bundle.getState()).append(' ');
        }
        return text.toString().trim();
    }

    /**
     * {@code service-property CLASS KEY}: the values of KEY on every service registered under
     * CLASS (by name: the agent needs no import of it), e.g. a distribution provider's counters.
     */
    String serviceProperty(String[] arguments) throws InvalidSyntaxException {
        ServiceReference<?>[] references = context.getAllServiceReferences(arguments[0], null);
        if (references == null) {
            throw new IllegalStateException("no service " + arguments[0]);
        }
        StringBuilder text = new StringBuilder();
        for (ServiceReference<?> reference : references) {
            text.append(reference.getProperty(arguments[1])).append(' ');
        }
        return text.toString().trim();
    }

    /** Stops the framework shortly after answering, so the answer still reaches the test. */
    String exitLater() {
        Thread stopper = new Thread(() -> {
            try {
                context.getBundle(0).stop();
            } catch (BundleException e) {
                System.err.println("stopping the framework: " + Failure.describe(e));
            }
        }, "jofi-rsa-agent-exit");
        stopper.start();
        return "";
    }

    private Bundle bundle(String symbolicName) {
        for (Bundle bundle : context.getBundles()) {
            if (symbolicName.equals(bundle.getSymbolicName())) {
                return bundle;
            }
        }
        throw new IllegalArgumentException("no bundle " + symbolicName);
    }
}
