package io.jofi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
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
 * (issue 4 "Conformance and hot swap", R15, API.md "Discovery": default order verbs, shm,
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
    private static final long DEADLINE_MS = 10_000;
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
        Link first = new Link(preferred(SHM));
        first.exchange(BURST);
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
        Link second = new Link(preferred(TCP));
        second.exchange(BURST);
        second.exchange(BURST);

        // 4. shm is back: preferred again, a new shm pair continues the numbering.
        shm.start();
        assertEquals("added " + SHM, listener.next(SHM));
        Link third = new Link(preferred(SHM));
        third.exchange(BURST);
        second.exchange(1);
        third.exchange(BURST);
        third.close();
        second.close();
        assertEquals(5L * BURST + 1, sequence);
    }

    /** The first info for local RDM messaging, which must come from {@code provider}. */
    private Info preferred(String provider) throws FabricException {
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_LOCAL_COMM);
        hints.epAttr().type(EpType.RDM);
        hints.domainAttr().dataProgress(Progress.AUTO);
        List<Info> infos = fabrics.getInfo(null, null, 0, hints);
        assertFalse(infos.isEmpty());
        Info info = infos.get(0);
        assertEquals("first provider for local RDM messaging", provider, info.fabricAttr().provName());
        return info;
    }

    private static ByteBuffer message(long n) {
        return ByteBuffer.allocateDirect(8).putLong(0, n);
    }

    /** Logical peers A and B over one provider: a fabric, a domain, an AV, an endpoint each. */
    private final class Link implements AutoCloseable {
        final Fabric fabric;
        final Domain domain;
        final CompletionQueue aCq;
        final CompletionQueue bCq;
        final AddressVector av;
        final Endpoint a;
        final Endpoint b;
        final long toB;
        private final CqEntry[] one = {new CqEntry()};

        Link(Info info) throws FabricException {
            fabric = fabrics.fabric(info.fabricAttr(), null);
            domain = fabric.domain(info, null);
            aCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), null);
            bCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), null);
            av = domain.openAv(new AvAttr(), null);
            a = open(info, aCq);
            b = open(info, bCq);
            long[] fi = {Fi.FI_ADDR_NOTAVAIL};
            assertEquals(1, av.insert(new byte[][] {b.getName()}, fi, 0, null));
            toB = fi[0];
            assertNotNull(info.fabricAttr().provName());
        }

        private Endpoint open(Info info, CompletionQueue cq) throws FabricException {
            Endpoint ep = domain.endpoint(info, null);
            ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            ep.bind(av, 0);
            ep.enable();
            return ep;
        }

        /** A sends B the next {@code n} numbers of the application's sequence; B checks each. */
        void exchange(int n) {
            ByteBuffer in = ByteBuffer.allocateDirect(8);
            ByteBuffer out = ByteBuffer.allocateDirect(8);
            for (int i = 0; i < n; i++) {
                in.clear();
                assertEquals(0, b.recv(in, null, Fi.FI_ADDR_UNSPEC, "r"));
                out.putLong(0, sequence);
                assertEquals(0, a.send(out, null, toB, "s"));
                take(bCq, "r");
                assertEquals(8, one[0].len());
                take(aCq, "s");
                assertEquals(sequence, in.getLong(0));
                sequence++;
            }
        }

        private void take(CompletionQueue cq, Object ctx) {
            long deadline = System.currentTimeMillis() + DEADLINE_MS;
            int rc;
            while ((rc = cq.read(one, 1)) != 1) {
                if (rc == -Errno.EAVAIL) {
                    CqErrEntry e = new CqErrEntry();
                    cq.readErr(e, 0);
                    fail("error completion " + Errno.name(e.err()) + " for " + e.context());
                }
                assertEquals(-Errno.EAGAIN, rc);
                assertTrue("no completion " + ctx + " within " + DEADLINE_MS + " ms",
                        System.currentTimeMillis() < deadline);
                Thread.onSpinWait();
            }
            assertEquals(ctx, one[0].context());
        }

        @Override
        public void close() throws FabricException {
            a.close();
            b.close();
            av.close();
            aCq.close();
            bCq.close();
            domain.close();
            fabric.close();
        }
    }
}
