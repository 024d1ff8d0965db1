package io.jofi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.Domain;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Info;
import io.jofi.spi.FabricProvider;
import java.lang.ref.WeakReference;
import java.util.Collection;
import java.util.List;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * R15's last sentence in a real framework: once the provider bundle is uninstalled and the
 * framework refreshed, none of its threads remain and nothing keeps its class loader alive.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class UnloadIT {

    @Inject
    private BundleContext context;

    @Inject
    private Fabrics fabrics;

    @Configuration
    public Option[] config() {
        return new Option[] {JofiContainer.all()};
    }

    @Test
    public void uninstallAndRefreshReleaseThreadsAndClassLoader() throws Exception {
        Bundle fixture = Osgi.bundle(context, JofiContainer.FIXTURE_BSN);
        // Everything that touches fixture objects happens in helpers, so that no local
        // variable slot of this frame keeps one of them reachable.
        WeakReference<ClassLoader> loader = fixtureLoader();
        useTheProviderAndDropEverything();

        fixture.uninstall();
        Osgi.refresh(context, List.of(fixture));
        fixture = null;

        assertEquals(List.of(), Osgi.threads("jofi-fixture-"));
        assertFalse(fabrics.providers().stream().anyMatch(p -> JofiContainer.FIXTURE_NAME.equals(p.name())));
        assertTrue("the fixture provider's class loader is still reachable after uninstall + refresh",
                Osgi.collected(loader));
    }

    /** A weak reference to the class loader of the fixture's FabricProvider service object. */
    private WeakReference<ClassLoader> fixtureLoader() throws InvalidSyntaxException {
        Collection<ServiceReference<FabricProvider>> refs = context.getServiceReferences(FabricProvider.class, null);
        for (ServiceReference<FabricProvider> ref : refs) {
            if (JofiContainer.FIXTURE_BSN.equals(ref.getBundle().getSymbolicName())) {
                FabricProvider provider = context.getService(ref);
                try {
                    assertNotNull(provider);
                    assertEquals(JofiContainer.FIXTURE_NAME, provider.name());
                    ClassLoader loader = provider.getClass().getClassLoader();
                    assertEquals(ref.getBundle().adapt(org.osgi.framework.wiring.BundleWiring.class).getClassLoader(), loader);
                    return new WeakReference<>(loader);
                } finally {
                    context.ungetService(ref);
                }
            }
        }
        throw new AssertionError("no FabricProvider service of " + JofiContainer.FIXTURE_BSN);
    }

    /**
     * Opens a fabric, a domain (whose progress thread runs) and a CQ through the registry, then
     * closes them: the objects a real application would have held, all dropped on return.
     */
    private void useTheProviderAndDropEverything() throws FabricException {
        Info info = fabrics.getInfo(null, null, 0, FabricsServiceIT.fixtureHints()).get(0);
        Fabric fabric = fabrics.fabric(info.fabricAttr(), null);
        Domain domain = fabric.domain(info, null);
        CompletionQueue cq = domain.openCq(new CqAttr().size(16), null);
        assertFalse("the fixture domain runs no progress thread", Osgi.threads("jofi-fixture-").isEmpty());
        cq.close();
        domain.close();
        fabric.close();
        assertEquals("closing the domain did not end its progress thread", List.of(), Osgi.threads("jofi-fixture-"));
    }
}
