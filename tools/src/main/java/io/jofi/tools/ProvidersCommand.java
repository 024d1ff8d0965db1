package io.jofi.tools;

import io.jofi.Fabrics;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleException;
import org.osgi.framework.wiring.FrameworkWiring;
import picocli.CommandLine;

/**
 * {@code jofi providers [list | start|stop NAME | update NAME [SOURCE]]}: the provider list, or
 * a hot swap of one provider's bundle, printing what {@code getInfo} (no hints) returns before
 * and after. An update refreshes the bundle, so its old revision and class loader go away.
 */
@CommandLine.Command(name = "providers", description = {
        "Lists the providers (as info -l), or starts, stops or updates the bundle of",
        "provider NAME, printing what getInfo returns before and after."})
final class ProvidersCommand extends Command {
    enum Action { list, start, stop, update }

    private static final long REFRESH_TIMEOUT_SECONDS = 30;

    @CommandLine.Parameters(index = "0", arity = "0..1", paramLabel = "ACTION",
            description = "list (the default), start, stop or update")
    Action action;

    @CommandLine.Parameters(index = "1", arity = "0..1", paramLabel = "NAME",
            description = "the provider name (tcp, shm, verbs, ...)")
    String name;

    @CommandLine.Parameters(index = "2", arity = "0..1", paramLabel = "SOURCE",
            description = "update only: the new bundle jar (a path or URL); default: where it was installed from")
    String source;

    @Override
    protected int execute() throws InterruptedException, IOException {
        Fabrics fabrics = context().requireFabrics();
        if (action == null || action == Action.list) {
            if (name != null) {
                throw new CommandFailure("'list' takes no NAME", ExitStatus.USAGE);
            }
            ProviderList.print(fabrics.providers(), context().bundleContext(), out());
            return ExitStatus.OK;
        }
        if (name == null) {
            throw new CommandFailure("'" + action + "' needs a provider NAME", ExitStatus.USAGE);
        }
        if (source != null && action != Action.update) {
            throw new CommandFailure("only 'update' takes a SOURCE", ExitStatus.USAGE);
        }
        Bundle bundle = ProviderBundles.find(context().requireBundleContext(), name)
                .orElseThrow(() -> new CommandFailure("no provider '" + name + "': " + ProviderBundles.WHERE_WE_LOOKED));
        boolean active = bundle.getState() == Bundle.ACTIVE;
        if ((action == Action.start && active) || (action == Action.stop && !active)) {
            out().println(name + " is already " + (active ? "started" : "stopped") + " (bundle " + bundle.getSymbolicName()
                    + " is " + ProviderBundles.stateName(bundle) + "): nothing to do");
            return ExitStatus.OK;
        }
        try (InputStream content = action == Action.update ? BundleSource.open(bundle, source) : null) {
            printInfos("before", fabrics);
            apply(bundle, content);
        }
        out().println(action + ": " + bundle.getSymbolicName() + " " + ProductVersion.maven(bundle.getVersion())
                + " (bundle " + bundle.getBundleId() + ")");
        printInfos("after", fabrics);
        return ExitStatus.OK;
    }

    private void apply(Bundle bundle, InputStream content) throws InterruptedException {
        try {
            switch (action) {
                case start -> bundle.start();
                case stop -> bundle.stop();
                case update -> {
                    bundle.update(content);
                    refresh(bundle);
                }
                default -> throw new IllegalStateException(action.name());
            }
        } catch (BundleException e) {
            throw new CommandFailure("cannot " + action + " " + bundle.getSymbolicName() + ": " + e.getMessage());
        }
    }

    /** Drops the bundle's old revision, so nothing keeps its old class loader (R15). */
    private void refresh(Bundle bundle) throws InterruptedException {
        FrameworkWiring wiring = context().requireBundleContext().getBundle(0).adapt(FrameworkWiring.class);
        CountDownLatch refreshed = new CountDownLatch(1);
        wiring.refreshBundles(List.of(bundle), event -> refreshed.countDown());
        if (!refreshed.await(REFRESH_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new CommandFailure("updated " + bundle.getSymbolicName() + " but the refresh did not finish in "
                    + REFRESH_TIMEOUT_SECONDS + " s");
        }
    }

    private void printInfos(String when, Fabrics fabrics) {
        out().println(when + ":");
        for (String line : InfoSummary.lines(fabrics)) {
            out().println("    " + line);
        }
    }
}
