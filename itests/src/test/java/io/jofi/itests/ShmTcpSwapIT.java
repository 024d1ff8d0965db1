package io.jofi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.jofi.AvAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
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

/**
 * Swapping between shm and tcp for the same local peer without restarting the framework
 * (R15, docs/API.md "Discovery": default order verbs, shm,
 * tcp). Both real provider bundles run in one Felix. An application has two logical peers,
 * A and B, in this JVM; it asks {@code getInfo} for RDM, {@code FI_MSG}, local communication
 * and uses the first answer:
 * <ol>
 * <li>shm: A sends B numbered messages;</li>
 * <li>the shm bundle stops: B's pending receive completes with {@code ECANCELED}, A's next
 *     send returns {@code -ENODEV}, the control path throws {@code ENODEV};</li>
 * <li>the application asks again, gets tcp, opens tcp RDM endpoints for A and B and the
 *     numbering continues where it stopped;</li>
 * <li>shm starts again: {@code getInfo} answers shm first again, and a new shm pair carries
 *     the rest of the numbers (the tcp pair still works meanwhile).</li>
 * </ol>
 * Every wait is bounded; nothing asserts a duration.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class ShmTcpSwapIT {
    private static final String SHM = JofiContainer.SHM_NAME;
    private static final String TCP = JofiContainer.TCP_NAME;
    /** Messages per leg of the journey. */
    private static final int BURST = 32;

    @Inject
    private BundleContext context;

    @Inject
    private Fabrics fabrics;

    private final RecordingListener listener = new RecordingListener();

    /** The application's message counter: it continues across providers. */
    private long sequence;

    @Configuration
    public Option[] config() {
        return new Option[] {JofiContainer.shmAndTcp()};
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
    public void trafficMovesFromShmToTcpAndBackWithoutAFrameworkRestart() throws Exception {
        Bundle shm = Osgi.bundle(context, JofiContainer.SHM_BSN);

        // 1. shm is preferred: the first answer for local RDM messaging.
        RdmPair first = new RdmPair(fabrics, preferred(SHM));
        sequence = first.exchange(sequence, BURST);
        assertEquals(0, first.b.recv(ByteBuffer.allocateDirect(8), null, Fi.FI_ADDR_UNSPEC, "pending"));

        // 2. shm goes away: pending operations are cancelled, the data path answers ENODEV.
        shm.stop();
        assertEquals("removed " + SHM, listener.next(SHM));
        CqErrEntry err = new CqErrEntry();
        assertEquals(-Errno.EAVAIL, first.bCq.read(new CqEntry[] {new CqEntry()}, 1));
        assertEquals(1, first.bCq.readErr(err, 0));
        assertEquals("pending", err.context());
        assertEquals(Errno.ECANCELED, err.err());
        assertEquals(-Errno.ENODEV, first.a.send(message(sequence), null, first.toB, null));
        try {
            first.domain.openAv(new AvAttr(), null);
            fail("openAv on a departed shm domain");
        } catch (FabricException e) {
            assertEquals(Errno.ENODEV, e.errno());
        }
        first.close();

        // 3. The same question now answers tcp; the same peers continue over it.
        RdmPair second = new RdmPair(fabrics, preferred(TCP));
        sequence = second.exchange(sequence, BURST);
        sequence = second.exchange(sequence, BURST);

        // 4. shm is back: preferred again, a new shm pair continues the numbering.
        shm.start();
        assertEquals("added " + SHM, listener.next(SHM));
        RdmPair third = new RdmPair(fabrics, preferred(SHM));
        sequence = third.exchange(sequence, BURST);
        sequence = second.exchange(sequence, 1);
        sequence = third.exchange(sequence, BURST);
        third.close();
        second.close();
        assertEquals(5L * BURST + 1, sequence);
    }

    /**
     * The first info for local RDM messaging, which must come from {@code provider} (RDM over tcp:
     * the ofi_rxm layer over it, {@code tcp;ofi_rxm}).
     */
    private Info preferred(String provider) throws FabricException {
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_LOCAL_COMM);
        hints.epAttr().type(EpType.RDM);
        hints.domainAttr().dataProgress(Progress.AUTO);
        List<Info> infos = fabrics.getInfo(null, null, 0, hints);
        assertFalse(infos.isEmpty());
        Info info = infos.get(0);
        String name = info.fabricAttr().provName();
        assertTrue("first provider for local RDM messaging: " + name, name.equals(provider)
                || name.equals(provider + ";ofi_rxm"));
        return info;
    }

    private static ByteBuffer message(long n) {
        return ByteBuffer.allocateDirect(8).putLong(0, n);
    }
}
