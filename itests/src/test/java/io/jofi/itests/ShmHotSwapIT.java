package io.jofi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
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
import org.osgi.framework.wiring.BundleWiring;

/**
 * Hot swap of the real shm provider bundle in a real Felix (R15): two RDM endpoints exchanging messages (AUTO progress) when the bundle is stopped
 * (pending receives ECANCELED, data path -ENODEV, control path ENODEV, no thread left, no
 * getInfo answer), started again and updated (new endpoints work), uninstalled and refreshed
 * (its class loader goes). Each test gets a fresh framework; every wait is bounded.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class ShmHotSwapIT {
    private static final String SHM = JofiContainer.SHM_NAME;

    @Inject
    private BundleContext context;

    @Inject
    private Fabrics fabrics;

    private final RecordingListener listener = new RecordingListener();

    @Configuration
    public Option[] config() {
        return new Option[] {JofiContainer.shm()};
    }

    @Before
    public void listen() {
        fabrics.addListener(listener);
    }

    @After
    public void unlisten() {
        fabrics.removeListener(listener);
    }

    @Test
    public void stoppingShmCancelsPendingOperationsAndAnswersEnodev() throws Exception {
        Bundle shm = Osgi.bundle(context, JofiContainer.SHM_BSN);
        RdmPair p = new RdmPair(fabrics, shmInfo());
        p.exchange(77, 1);
        assertFalse("AUTO progress runs an shm thread", Osgi.threads(JofiContainer.SHM_THREADS).isEmpty());
        assertEquals(0, p.b.recv(ByteBuffer.allocate(8), null, Fi.FI_ADDR_UNSPEC, "pending"));

        shm.stop();

        assertEquals("removed " + SHM, listener.next(SHM));
        assertTrue(shmInfos().isEmpty());
        assertEquals(List.of(), Osgi.threads(JofiContainer.SHM_THREADS));
        CqErrEntry err = new CqErrEntry();
        assertEquals(-Errno.EAVAIL, p.bCq.read(new CqEntry[] {new CqEntry()}, 1));
        assertEquals(1, p.bCq.readErr(err, 0));
        assertEquals("pending", err.context());
        assertEquals(Errno.ECANCELED, err.err());
        assertEquals(-Errno.ENODEV, p.a.send(ByteBuffer.allocate(1), null, p.toB, null));
        assertEquals(-Errno.ENODEV, p.aCq.read(new CqEntry[] {new CqEntry()}, 1));
        try {
            p.domain.openCq(new CqAttr(), null);
            fail("openCq after the departure");
        } catch (FabricException e) {
            assertEquals(Errno.ENODEV, e.errno());
        }
        p.close();
    }

    @Test
    public void startedAgainOrUpdatedNewEndpointsWork() throws Exception {
        Bundle shm = Osgi.bundle(context, JofiContainer.SHM_BSN);
        RdmPair before = new RdmPair(fabrics, shmInfo());
        before.exchange(77, 1);
        shm.stop();
        assertEquals("removed " + SHM, listener.next(SHM));
        before.close();

        shm.start();
        assertEquals("added " + SHM, listener.next(SHM));
        try (RdmPair again = new RdmPair(fabrics, shmInfo())) {
            again.exchange(77, 1);
        }
        shm.update();
        assertEquals("removed " + SHM, listener.next(SHM));
        assertEquals("added " + SHM, listener.next(SHM));
        try (RdmPair updated = new RdmPair(fabrics, shmInfo())) {
            updated.exchange(77, 1);
        }
    }

    @Test
    public void uninstalledAndRefreshedNothingOfShmRemains() throws Exception {
        Bundle shm = Osgi.bundle(context, JofiContainer.SHM_BSN);
        ClassLoader l = shm.adapt(BundleWiring.class).getClassLoader();
        assertNotNull(l);
        WeakReference<ClassLoader> loader = new WeakReference<>(l);
        l = null;
        RdmPair p = new RdmPair(fabrics, shmInfo());
        p.exchange(77, 1);
        shm.uninstall();
        Osgi.refresh(context, List.of(shm));
        shm = null;
        assertEquals(List.of(), Osgi.threads(JofiContainer.SHM_THREADS));
        assertTrue(shmInfos().isEmpty());
        p.close();
        p = null;
        assertTrue("the shm provider's class loader is still reachable after uninstall + refresh",
                Osgi.collected(loader));
    }

    private List<Info> shmInfos() throws FabricException {
        try {
            return fabrics.getInfo(null, null, 0, hints());
        } catch (FabricException e) {
            assertEquals(Errno.ENODATA, e.errno());
            return List.of();
        }
    }

    private static Info hints() {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.RDM);
        hints.fabricAttr().provName(SHM);
        hints.domainAttr().dataProgress(Progress.AUTO);
        return hints;
    }

    /** The first shm RDM info (the provider must be there). */
    private Info shmInfo() throws FabricException {
        return fabrics.getInfo(null, null, 0, hints()).get(0);
    }
}
