package io.jofi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.spi.util.UtilCompletionQueue;
import java.util.List;
import javax.inject.Inject;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * Hot swap of a provider bundle (R15): stop, start and update the fixture bundle
 * under a live registry. Each test gets a fresh framework.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class HotSwapIT {
    private static final String FIXTURE = JofiContainer.FIXTURE_NAME;
    private static final String FIXTURE_THREADS = "jofi-fixture-";

    @Inject
    private BundleContext context;

    @Inject
    private Fabrics fabrics;

    private final RecordingListener listener = new RecordingListener();
    private Bundle fixture;

    @Configuration
    public Option[] config() {
        return new Option[] {JofiContainer.all()};
    }

    @Before
    public void listen() throws FabricException {
        fixture = Osgi.bundle(context, JofiContainer.FIXTURE_BSN);
        assertEquals(2, fixtureInfos().size());
        fabrics.addListener(listener);
    }

    @After
    public void unlisten() {
        fabrics.removeListener(listener);
    }

    @Test
    public void stopRemovesTheProviderAtOnceAndTellsListeners() throws Exception {
        fixture.stop();

        // "at once": no wait between stop() returning and getInfo
        assertNoFixtureInfo();
        assertEquals("removed " + FIXTURE, listener.next(FIXTURE));
        assertFalse(fabrics.providers().stream().anyMatch(p -> FIXTURE.equals(p.name())));
    }

    @Test
    public void startBringsTheProviderBack() throws Exception {
        fixture.stop();
        assertEquals("removed " + FIXTURE, listener.next(FIXTURE));

        fixture.start();

        assertEquals("added " + FIXTURE, listener.next(FIXTURE));
        assertEquals(2, fixtureInfos().size());
    }

    @Test
    public void updateRemovesThenAddsTheProvider() throws Exception {
        fixture.update();

        assertEquals("removed " + FIXTURE, listener.next(FIXTURE));
        assertEquals("added " + FIXTURE, listener.next(FIXTURE));
        assertEquals(Bundle.ACTIVE, fixture.getState());
        assertEquals(2, fixtureInfos().size());
    }

    @Test
    public void objectsOpenedBeforeTheStopAnswerEnodev() throws Exception {
        Info info = fixtureInfos().get(0);
        Fabric fabric = fabrics.fabric(info.fabricAttr(), "fabric-context");
        Domain domain = fabric.domain(info, "domain-context");
        CompletionQueue cq = domain.openCq(new CqAttr().size(16).format(CqFormat.MSG), "cq-context");
        EventQueue eq = fabric.openEq(new EqAttr().size(16).flags(Fi.FI_WRITE), "eq-context");
        assertEquals(1, eq.write(new EqEntry().event(Fi.FI_NOTIFY).context("before the stop").data(42), 0));
        // A completion of an operation that finished before the departure, written as a
        // provider writes it (the CQ is the util layer's, exported by the api bundle).
        UtilCompletionQueue providerSide = (UtilCompletionQueue) cq;
        assertEquals(0, providerSide.reserve());
        providerSide.complete("op before the stop", Fi.FI_MSG | Fi.FI_RECV, 7, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
        assertFalse("the fixture domain runs no progress thread", Osgi.threads(FIXTURE_THREADS).isEmpty());

        fixture.stop();

        // No thread of the provider survives its departure.
        assertEquals(List.of(), Osgi.threads(FIXTURE_THREADS));

        // Queues stay readable: what was queued before the departure is still there ...
        EqEntry event = new EqEntry();
        assertEquals(1, eq.read(event, 0));
        assertEquals(Fi.FI_NOTIFY, event.event());
        assertEquals("before the stop", event.context());
        assertEquals(42, event.data());
        CqEntry[] entries = {new CqEntry()};
        assertEquals(1, cq.read(entries, 1));
        assertEquals("op before the stop", entries[0].context());
        assertEquals(7, entries[0].len());
        // ... and then the data path answers -ENODEV.
        assertEquals(-Errno.ENODEV, eq.read(event, 0));
        assertEquals(-Errno.ENODEV, cq.read(entries, 1));
        assertEquals(-Errno.ENODEV, eq.write(new EqEntry().event(Fi.FI_NOTIFY), 0));

        // The control path throws ENODEV.
        assertThrowsEnodev(() -> domain.openCq(new CqAttr().size(16), null));
        assertThrowsEnodev(() -> fabric.domain(info, null));
        assertThrowsEnodev(() -> fabric.openEq(new EqAttr().size(16), null));

        // Departed objects can still be closed (the application's clean-up path).
        cq.close();
        eq.close();
        domain.close();
        fabric.close();
    }

    private List<Info> fixtureInfos() throws FabricException {
        return fabrics.getInfo(null, null, 0, FabricsServiceIT.fixtureHints());
    }

    private void assertNoFixtureInfo() {
        try {
            List<Info> infos = fixtureInfos();
            fail("getInfo still returns the stopped provider's infos: " + infos);
        } catch (FabricException e) {
            assertEquals(e.getMessage(), Errno.ENODATA, e.errno());
        }
    }

    /** A control-path call. */
    private interface ControlCall {
        Object run() throws FabricException;
    }

    private static void assertThrowsEnodev(ControlCall call) {
        try {
            Object result = call.run();
            fail("expected ENODEV, got " + result);
        } catch (FabricException e) {
            assertEquals(e.getMessage(), Errno.ENODEV, e.errno());
            assertTrue(e.getMessage(), e.getMessage() != null && !e.getMessage().isEmpty());
        }
    }
}
