package io.jofi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.WaitObj;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.util.List;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.CoreOptions;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * Hot swap of the real tcp provider bundle in a real Felix (R15): stopped while two connected
 * MSG endpoints have receives pending, started again, uninstalled and refreshed.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class TcpHotSwapIT {
    private static final String TCP_BSN = "io.jofi.provider.tcp";
    private static final String TCP_THREADS = "jofi-tcp";
    private static final long DEADLINE_MS = 10_000;

    @Inject
    private BundleContext context;

    @Inject
    private Fabrics fabrics;

    @Configuration
    public Option[] config() {
        return new Option[] {CoreOptions.composite(JofiContainer.runtime(), JofiContainer.jofiBundle("api"),
                JofiContainer.jofiBundle("tcp"))};
    }

    /** Two connected MSG endpoints on 127.0.0.1, each with its own EQ and CQ. */
    private final class Pair implements AutoCloseable {
        final Fabric fabric;
        final Domain domain;
        final EventQueue serverEq;
        final EventQueue clientEq;
        final CompletionQueue serverCq;
        final CompletionQueue clientCq;
        final PassiveEndpoint pep;
        final Endpoint server;
        final Endpoint client;

        Pair() throws Exception {
            Info hints = new Info().caps(Fi.FI_MSG);
            hints.epAttr().type(EpType.MSG);
            hints.fabricAttr().provName("tcp");
            Info info = fabrics.getInfo("127.0.0.1", "0", Fi.FI_SOURCE, hints).get(0);
            fabric = fabrics.fabric(info.fabricAttr(), null);
            domain = fabric.domain(info, null);
            serverEq = fabric.openEq(new EqAttr().waitObj(WaitObj.UNSPEC), null);
            clientEq = fabric.openEq(new EqAttr().waitObj(WaitObj.UNSPEC), null);
            serverCq = domain.openCq(new CqAttr().format(CqFormat.DATA).waitObj(WaitObj.UNSPEC), null);
            clientCq = domain.openCq(new CqAttr().format(CqFormat.DATA).waitObj(WaitObj.UNSPEC), null);
            pep = fabric.passiveEndpoint(info, null);
            pep.bind(serverEq, 0);
            pep.listen();
            byte[] address = pep.getName();
            client = domain.endpoint(info, "client");
            client.bind(clientEq, 0);
            client.bind(clientCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            client.enable();
            client.connect(address, null);
            EqEntry req = await(serverEq, Fi.FI_CONNREQ);
            server = domain.endpoint(req.info(), "server");
            server.bind(serverEq, 0);
            server.bind(serverCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            server.enable();
            server.accept(null);
            await(serverEq, Fi.FI_CONNECTED);
            await(clientEq, Fi.FI_CONNECTED);
        }

        /** One round trip client → server. */
        void roundTrip() {
            ByteBuffer rx = ByteBuffer.allocate(16);
            assertEquals(0, server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx"));
            assertEquals(0, client.send(ByteBuffer.wrap(new byte[] {7, 8, 9}), null, Fi.FI_ADDR_UNSPEC, "tx"));
            assertEquals("tx", completion(clientCq).context());
            CqEntry c = completion(serverCq);
            assertEquals("rx", c.context());
            assertEquals(3, c.len());
        }

        @Override
        public void close() throws FabricException {
            for (io.jofi.Fid f : new io.jofi.Fid[] {client, server, pep, serverCq, clientCq, serverEq, clientEq,
                    domain, fabric}) {
                if (f != null) {
                    f.close();
                }
            }
        }
    }

    @Test
    public void stoppingTcpUnderTrafficCancelsShutsDownAndAnswersEnodev() throws Exception {
        Pair p = new Pair();
        p.roundTrip();
        ByteBuffer rx = ByteBuffer.allocate(64);
        assertEquals(0, p.client.recv(rx, null, Fi.FI_ADDR_UNSPEC, "pending-1"));
        assertEquals(0, p.client.recv(rx, null, Fi.FI_ADDR_UNSPEC, "pending-2"));

        Osgi.bundle(context, TCP_BSN).stop();

        // getInfo no longer returns tcp, at once
        try {
            fabrics.getInfo(null, null, 0, null);
            fail("getInfo still answers after the tcp bundle stopped");
        } catch (FabricException e) {
            assertEquals(Errno.ENODATA, e.errno());
        }
        // connected endpoints got FI_SHUTDOWN, exactly once each
        await(p.clientEq, Fi.FI_SHUTDOWN);
        await(p.serverEq, Fi.FI_SHUTDOWN);
        EqEntry more = new EqEntry();
        assertEquals(-Errno.ENODEV, p.clientEq.read(more, 0));
        assertEquals(-Errno.ENODEV, p.serverEq.read(more, 0));
        // pending operations completed with ECANCELED, readable after the departure
        CqErrEntry err = new CqErrEntry();
        for (String expected : new String[] {"pending-1", "pending-2"}) {
            CqEntry[] one = {new CqEntry()};
            assertEquals(-Errno.EAVAIL, p.clientCq.read(one, 1));
            assertEquals(1, p.clientCq.readErr(err, 0));
            assertEquals(expected, err.context());
            assertEquals(Errno.ECANCELED, err.err());
        }
        // then the data path answers ENODEV and the control path throws it
        assertEquals(-Errno.ENODEV, p.clientCq.read(new CqEntry[] {new CqEntry()}, 1));
        assertEquals(-Errno.ENODEV, p.client.send(ByteBuffer.allocate(1), null, Fi.FI_ADDR_UNSPEC, null));
        try {
            p.domain.openCq(new CqAttr(), null);
            fail("a departed domain opened a CQ");
        } catch (FabricException e) {
            assertEquals(Errno.ENODEV, e.errno());
        }
        assertTrue("tcp threads outlived the stop: " + Osgi.threads(TCP_THREADS), Osgi.threads(TCP_THREADS).isEmpty());
        p.close();
    }

    @Test
    public void startedAgainOrUpdatedANewConnectionWorks() throws Exception {
        Bundle tcp = Osgi.bundle(context, TCP_BSN);
        Pair before = new Pair();
        before.roundTrip();
        tcp.stop();
        before.close();
        tcp.start();
        try (Pair again = new Pair()) {
            again.roundTrip();
        }
        tcp.update();
        try (Pair updated = new Pair()) {
            updated.roundTrip();
        }
    }

    @Test
    public void uninstalledAndRefreshedNothingOfTcpRemains() throws Exception {
        Bundle tcp = Osgi.bundle(context, TCP_BSN);
        WeakReference<ClassLoader> loader = useTcpOnce(tcp);
        tcp.uninstall();
        Osgi.refresh(context, List.of(tcp));
        assertTrue("tcp threads outlived the uninstall: " + Osgi.threads(TCP_THREADS),
                Osgi.threads(TCP_THREADS).isEmpty());
        assertTrue("the tcp provider's class loader is still reachable", Osgi.collected(loader));
    }

    /**
     * Opens, uses and closes a connected pair; returns only a weak reference to the provider's
     * class loader, so that no local variable of the test keeps anything of tcp reachable.
     */
    private WeakReference<ClassLoader> useTcpOnce(Bundle tcp) throws Exception {
        try (Pair p = new Pair()) {
            p.roundTrip();
            assertEquals(tcp, org.osgi.framework.FrameworkUtil.getBundle(p.client.getClass()));
            return new WeakReference<>(p.client.getClass().getClassLoader());
        }
    }

    private static EqEntry await(EventQueue eq, int event) {
        EqEntry e = new EqEntry();
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (System.currentTimeMillis() < deadline) {
            int rc = eq.sread(e, 100, 0);
            if (rc == 1) {
                assertEquals("event on " + eq, event, e.event());
                return e;
            }
            if (rc != -Errno.EAGAIN) {
                fail("waiting for event " + event + ": " + Errno.name(-rc));
            }
        }
        fail("no event " + event + " within " + DEADLINE_MS + " ms");
        return null;
    }

    private static CqEntry completion(CompletionQueue cq) {
        CqEntry[] one = {new CqEntry()};
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (System.currentTimeMillis() < deadline) {
            int rc = cq.sread(one, 1, 0, 100);
            if (rc == 1) {
                return one[0];
            }
            if (rc != -Errno.EAGAIN) {
                CqErrEntry err = new CqErrEntry();
                cq.readErr(err, 0);
                fail("waiting for a completion: " + Errno.name(-rc) + " " + err);
            }
        }
        fail("no completion within " + DEADLINE_MS + " ms");
        return null;
    }
}
