package io.jofi.tools;

import io.jofi.Fabrics;
import java.io.PrintStream;
import org.osgi.framework.BundleContext;

/**
 * What a command runs against.
 *
 * @param fabrics        the registry, {@code null} when the api bundle's Fabrics service is absent
 * @param bundleContext  the tools bundle's context, {@code null} outside OSGi (unit tests)
 * @param out            normal output
 * @param err            the one-line reasons of failures
 */
public record CommandContext(Fabrics fabrics, BundleContext bundleContext, PrintStream out, PrintStream err) {

    /** The registry, or a {@link CommandFailure} saying why there is none. */
    Fabrics requireFabrics() {
        if (fabrics == null) {
            throw new CommandFailure("no Fabrics service: the io.jofi.api bundle is not active");
        }
        return fabrics;
    }

    /** The bundle context, or a {@link CommandFailure} saying there is no framework. */
    BundleContext requireBundleContext() {
        if (bundleContext == null) {
            throw new CommandFailure("not running in an OSGi framework");
        }
        return bundleContext;
    }
}
