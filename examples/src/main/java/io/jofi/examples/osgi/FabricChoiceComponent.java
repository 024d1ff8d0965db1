package io.jofi.examples.osgi;

import io.jofi.Domain;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.ProviderInfo;
import io.jofi.ProviderListener;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * A Declarative Services component that uses the best provider for RDM messages and follows
 * providers as bundles start and stop — without restarting itself. It takes the api bundle's
 * {@link Fabrics} service by {@code @Reference} (static and mandatory: the registry itself
 * stays while providers come and go), opens a fabric and a domain of the first
 * {@code getInfo} answer, and registers a {@link ProviderListener}:
 * <ul>
 * <li>{@code providerRemoved}: the provider has already shut down everything it opened
 *     (R15: pending operations completed with ECANCELED, further calls ENODEV), so the
 *     component closes its handles and moves to the next best provider;</li>
 * <li>{@code providerAdded}: a better provider may have arrived (getInfo's order: verbs, shm,
 *     tcp), so it asks again and moves if the answer changed.</li>
 * </ul>
 * The callbacks run on the thread that starts or stops the provider's bundle; a listener may
 * call back into the registry, as this one does.
 */
@Component(service = FabricChoice.class, immediate = true)
public class FabricChoiceComponent implements FabricChoice {
    @Reference
    private Fabrics fabrics;

    private final List<String> history = new CopyOnWriteArrayList<>();
    private final ProviderListener listener = new ProviderListener() {
        @Override
        public void providerAdded(ProviderInfo provider) {
            choose(null);
        }

        @Override
        public void providerRemoved(ProviderInfo provider) {
            choose(provider.name());
        }
    };
    // guarded by this
    private Fabric fabric;
    private Domain domain;
    private String current;

    @Activate
    void activate() {
        fabrics.addListener(listener); // first, so that no change between the two calls is missed
        choose(null);
    }

    @Deactivate
    void deactivate() {
        fabrics.removeListener(listener);
        synchronized (this) {
            release();
            current = null;
        }
    }

    @Override
    public synchronized String provider() {
        return current;
    }

    @Override
    public List<String> history() {
        return List.copyOf(history);
    }

    /** Asks getInfo for the best RDM provider and moves there if it is not the one in use. */
    private synchronized void choose(String departed) {
        boolean lost = departed != null && departed.equals(current);
        if (lost) {
            history.add(departed + " departed");
            release(); // its objects are already shut down (R15); closing frees our handles
            current = null;
        }
        Info best = best();
        String name = best == null ? null : best.fabricAttr().provName();
        if (Objects.equals(name, current) && !lost && !history.isEmpty()) {
            return; // still the best one
        }
        release();
        current = null;
        if (best != null) {
            try {
                fabric = fabrics.fabric(best.fabricAttr(), "example");
                domain = fabric.domain(best, "example");
            } catch (FabricException e) {
                release();
                history.add("cannot open " + name + ": " + e.getMessage());
                return;
            }
        }
        current = name;
        history.add(name == null ? "no provider" : "using " + name);
    }

    /** The first getInfo answer for RDM messages, or null when no provider offers them. */
    private Info best() {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.RDM);
        try {
            return fabrics.getInfo(null, null, 0, hints).get(0);
        } catch (FabricException e) {
            if (e.errno() != Errno.ENODATA) {
                history.add("getInfo failed: " + e.getMessage());
            }
            return null;
        }
    }

    private void release() {
        for (AutoCloseable fid : new AutoCloseable[] {domain, fabric}) {
            try {
                if (fid != null) {
                    fid.close();
                }
            } catch (Exception e) {
                // a departed provider's objects may answer ENODEV: nothing is left to free
            }
        }
        domain = null;
        fabric = null;
    }
}
