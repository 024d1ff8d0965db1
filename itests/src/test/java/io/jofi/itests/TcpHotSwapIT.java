package io.jofi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
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
import io.jofi.Fid;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.Progress;
import io.jofi.WaitObj;
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
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.wiring.BundleWiring;

/**
 * Hot swap of the real tcp provider bundle in a real Felix (R15): stopped while a thread sends in a loop between two connected MSG endpoints (AUTO
 * progress), started again, updated in place, uninstalled and refreshed. Each test gets a
 * fresh framework; every wait is bounded and nothing asserts a duration.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class TcpHotSwapIT {
    private static final String TCP = JofiContainer.TCP_NAME;
    private static final long DEADLINE_MS = 10_000;
    /** Receives the server keeps posted while traffic flows (well below the queue size). */
    private static final int SERVER_RECVS = 256;
    /** Receive completions the server must have seen before the stop: traffic really flows. */
    private static final int FLOWING = 64;

    @Inject
    private BundleContext context;

    @Inject
    private Fabrics fabrics;

    private final RecordingListener listener = new RecordingListener();

    @Configuration
    public Option[] config() {
        return new Option[] {JofiContainer.tcp()};
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
    public void stoppingTcpUnderTrafficCancelsShutsDownAndAnswersEnodev() throws Exception {
        Bundle tcp = Osgi.bundle(context, JofiContainer.TCP_BSN);
        Pair p = new Pair();
        p.roundTrip();
        assertFalse("AUTO progress runs a tcp thread", Osgi.threads(JofiContainer.TCP_THREADS).isEmpty());

        // Two receives on the client that nothing will ever match: certainly pending at the stop.
        ByteBuffer never = ByteBuffer.allocate(64);
        assertEquals(0, p.client.recv(never, null, Fi.FI_ADDR_UNSPEC, "never-1"));
        assertEquals(0, p.client.recv(never.duplicate(), null, Fi.FI_ADDR_UNSPEC, "never-2"));
        // The server keeps SERVER_RECVS receives posted; a thread sends client -> server in a loop.
        ByteBuffer[] rxBuffers = new ByteBuffer[SERVER_RECVS];
        Tally server = new Tally();
        for (int i = 0; i < SERVER_RECVS; i++) {
            rxBuffers[i] = ByteBuffer.allocate(16);
            assertEquals(0, p.server.recv(rxBuffers[i], null, Fi.FI_ADDR_UNSPEC, i));
            server.posted++;
        }
        Sender sender = new Sender(p.client, p.clientCq);
        sender.start();
        // Traffic flows: FLOWING receives complete (each reposted at once), then the stop.
        CqEntry[] one = {new CqEntry()};
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        int received = 0;
        while (received < FLOWING) {
            assertTrue("only " + received + " messages arrived within " + DEADLINE_MS + " ms; sender: "
                    + sender.problem, System.currentTimeMillis() < deadline);
            int rc = p.serverCq.sread(one, 1, 0, 100);
            if (rc == -Errno.EAGAIN) {
                continue;
            }
            assertEquals("server CQ read: " + Errno.name(-rc), 1, rc);
            assertEquals(8, one[0].len());
            server.ok++;
            received++;
            int index = (Integer) one[0].context();
            rxBuffers[index].clear();
            assertEquals(0, p.server.recv(rxBuffers[index], null, Fi.FI_ADDR_UNSPEC, index));
            server.posted++;
        }

        tcp.stop();

        // getInfo no longer returns tcp, at once; the registry and its listeners know.
        assertNoTcpInfo();
        assertFalse(fabrics.providers().stream().anyMatch(pi -> TCP.equals(pi.name())));
        assertEquals("removed " + TCP, listener.next(TCP));
        // No tcp thread outlives the stop; the sender ends on -ENODEV.
        assertEquals(List.of(), Osgi.threads(JofiContainer.TCP_THREADS));
        sender.join(DEADLINE_MS);
        assertFalse("the sender did not end within " + DEADLINE_MS + " ms", sender.isAlive());
        assertNull(sender.problem, sender.problem);
        assertEquals("the send after the departure", -Errno.ENODEV, sender.lastRc);
        assertTrue("the sender posted nothing", sender.tally.posted > 0);

        // Connected endpoints got FI_SHUTDOWN exactly once each: the next read finds the
        // departed, drained EQ.
        await(p.clientEq, Fi.FI_SHUTDOWN);
        await(p.serverEq, Fi.FI_SHUTDOWN);
        EqEntry more = new EqEntry();
        assertEquals(-Errno.ENODEV, p.clientEq.read(more, 0));
        assertEquals(-Errno.ENODEV, p.serverEq.read(more, 0));

        // CQs stay readable until drained: every operation posted completed exactly once,
        // successfully before the departure or with ECANCELED.
        drain(p.clientCq, sender.tally);
        assertEquals("client completions " + sender.tally, sender.tally.posted, sender.tally.ok + sender.tally.canceled);
        assertEquals("never-matched receives cancelled " + sender.tally.neverCanceled, 2, sender.tally.neverCanceled);
        drain(p.serverCq, server);
        assertEquals("server completions " + server, server.posted, server.ok + server.canceled);

        // Then the data path answers -ENODEV ...
        assertEquals(-Errno.ENODEV, p.clientCq.read(one, 1));
        assertEquals(-Errno.ENODEV, p.serverCq.read(one, 1));
        assertEquals(-Errno.ENODEV, p.clientCq.readErr(new CqErrEntry(), 0));
        assertEquals(-Errno.ENODEV, p.client.send(ByteBuffer.allocate(1), null, Fi.FI_ADDR_UNSPEC, null));
        assertEquals(-Errno.ENODEV, p.server.recv(ByteBuffer.allocate(1), null, Fi.FI_ADDR_UNSPEC, null));
        // ... and the control path throws ENODEV.
        assertThrowsEnodev(() -> p.domain.openCq(new CqAttr(), null));
        assertThrowsEnodev(() -> p.fabric.openEq(new EqAttr(), null));
        assertThrowsEnodev(() -> p.domain.endpoint(p.info, null));
        assertThrowsEnodev(() -> p.client.getName());
        assertThrowsEnodev(() -> p.server.getPeer());
        assertThrowsEnodev(() -> p.pep.getName());
        assertThrowsEnodev(() -> p.anotherDomain());
        // Departed objects can still be closed (the application's clean-up).
        p.close();
    }

    @Test
    public void startedAgainOrUpdatedANewConnectionWorks() throws Exception {
        Bundle tcp = Osgi.bundle(context, JofiContainer.TCP_BSN);
        Pair before = new Pair();
        before.roundTrip();

        tcp.stop();
        assertEquals("removed " + TCP, listener.next(TCP));
        assertNoTcpInfo();
        before.close();

        tcp.start();
        assertEquals("added " + TCP, listener.next(TCP));
        assertFalse(tcpInfos().isEmpty());
        try (Pair again = new Pair()) {
            again.roundTrip();
            again.roundTrip();
        }

        // update in place: the same bundle, a new revision; removed, then added
        long revisions = tcp.adapt(org.osgi.framework.wiring.BundleRevisions.class).getRevisions().size();
        tcp.update();
        assertEquals("removed " + TCP, listener.next(TCP));
        assertEquals("added " + TCP, listener.next(TCP));
        assertEquals(Bundle.ACTIVE, tcp.getState());
        assertTrue(tcp.adapt(org.osgi.framework.wiring.BundleRevisions.class).getRevisions().size() >= revisions);
        try (Pair updated = new Pair()) {
            assertEquals("the new connection's classes come from the updated bundle", tcp,
                    FrameworkUtil.getBundle(updated.client.getClass()));
            updated.roundTrip();
        }
    }

    @Test
    public void uninstalledAndRefreshedNothingOfTcpRemains() throws Exception {
        Bundle tcp = Osgi.bundle(context, JofiContainer.TCP_BSN);
        WeakReference<ClassLoader> loader = loaderOf(tcp);
        // Connected, with a receive pending, when the bundle goes away: departure, not close.
        Pair p = new Pair();
        p.roundTrip();
        assertEquals(0, p.client.recv(ByteBuffer.allocate(8), null, Fi.FI_ADDR_UNSPEC, "pending"));

        tcp.uninstall();
        Osgi.refresh(context, List.of(tcp));
        tcp = null;

        assertEquals(List.of(), Osgi.threads(JofiContainer.TCP_THREADS));
        assertNoTcpInfo();
        await(p.clientEq, Fi.FI_SHUTDOWN);
        CqErrEntry err = new CqErrEntry();
        assertEquals(-Errno.EAVAIL, p.clientCq.read(new CqEntry[] {new CqEntry()}, 1));
        assertEquals(1, p.clientCq.readErr(err, 0));
        assertEquals("pending", err.context());
        assertEquals(Errno.ECANCELED, err.err());
        // The application drops everything it opened through the provider: those objects'
        // classes are the provider's, so they hold its class loader.
        p.close();
        p = null;
        err = null;

        assertEquals(List.of(), Osgi.threads(JofiContainer.TCP_THREADS));
        assertTrue("the tcp provider's class loader is still reachable after uninstall + refresh",
                Osgi.collected(loader));
    }

    /** A weak reference to the class loader of the tcp bundle's current revision. */
    private static WeakReference<ClassLoader> loaderOf(Bundle tcp) {
        ClassLoader loader = tcp.adapt(BundleWiring.class).getClassLoader();
        assertNotNull(loader);
        return new WeakReference<>(loader);
    }

    private List<Info> tcpInfos() throws FabricException {
        return fabrics.getInfo(null, null, 0, tcpHints());
    }

    private static Info tcpHints() {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.MSG);
        hints.fabricAttr().provName(TCP);
        hints.domainAttr().dataProgress(Progress.AUTO).controlProgress(Progress.AUTO);
        return hints;
    }

    private void assertNoTcpInfo() {
        try {
            List<Info> infos = fabrics.getInfo(null, null, 0, null);
            fail("getInfo still answers after the tcp bundle went away: " + infos);
        } catch (FabricException e) {
            assertEquals(e.getMessage(), Errno.ENODATA, e.errno());
        }
    }

    /**
     * Two connected MSG endpoints on 127.0.0.1 (AUTO progress): the passive side's accepted
     * {@code server} and the active {@code client}, each with its own EQ and CQ.
     */
    private final class Pair implements AutoCloseable {
        final Info info;
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
            info = fabrics.getInfo("127.0.0.1", "0", Fi.FI_SOURCE, tcpHints()).get(0);
            assertEquals(TCP, info.fabricAttr().provName());
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

        /** One round trip: client → server, then server → client. */
        void roundTrip() {
            ByteBuffer rx = ByteBuffer.allocate(16);
            assertEquals(0, server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx"));
            assertEquals(0, client.send(ByteBuffer.wrap(new byte[] {7, 8, 9}), null, Fi.FI_ADDR_UNSPEC, "tx"));
            assertEquals("tx", completion(clientCq).context());
            CqEntry c = completion(serverCq);
            assertEquals("rx", c.context());
            assertEquals(3, c.len());
            ByteBuffer back = ByteBuffer.allocate(16);
            assertEquals(0, client.recv(back, null, Fi.FI_ADDR_UNSPEC, "back"));
            assertEquals(0, server.send(ByteBuffer.wrap(new byte[] {1, 2}), null, Fi.FI_ADDR_UNSPEC, "reply"));
            assertEquals("reply", completion(serverCq).context());
            c = completion(clientCq);
            assertEquals("back", c.context());
            assertEquals(2, c.len());
            assertEquals(2, back.get(1));
        }

        /** A control-path call on the fabric. */
        Object anotherDomain() throws FabricException {
            return fabric.domain(info, null);
        }

        @Override
        public void close() throws FabricException {
            for (Fid f : new Fid[] {client, server, pep, serverCq, clientCq, serverEq, clientEq, domain, fabric}) {
                if (f != null) {
                    f.close();
                }
            }
        }
    }

    /** What one side's CQ reported about the operations it posted. */
    private static final class Tally {
        long posted;
        long ok;
        long canceled;
        int neverCanceled;

        @Override
        public String toString() {
            return "posted " + posted + ", ok " + ok + ", ECANCELED " + canceled + " (+" + neverCanceled
                    + " never-matched receives)";
        }
    }

    /**
     * Sends 8-byte messages in a loop until a send answers neither 0 nor {@code -EAGAIN}
     * (after the departure: {@code -ENODEV}), reaping its own CQ so that it never fills.
     * Everything it records is read by the test after {@link #join}.
     */
    private static final class Sender extends Thread {
        private final Endpoint ep;
        private final CompletionQueue cq;
        final Tally tally = new Tally();
        private final CqEntry[] batch = {new CqEntry(), new CqEntry(), new CqEntry(), new CqEntry()};
        private final CqErrEntry err = new CqErrEntry();
        int lastRc;
        String problem;

        Sender(Endpoint ep, CompletionQueue cq) {
            super("test-sender");
            setDaemon(true);
            this.ep = ep;
            this.cq = cq;
        }

        @Override
        public void run() {
            long deadline = System.currentTimeMillis() + 3 * DEADLINE_MS;
            try {
                while (System.currentTimeMillis() < deadline) {
                    int rc = ep.send(ByteBuffer.allocate(8).putLong(0, tally.posted), null, Fi.FI_ADDR_UNSPEC, "tx");
                    if (rc == 0) {
                        tally.posted++;
                        if ((tally.posted & 15) == 0) {
                            reap();
                        }
                    } else if (rc == -Errno.EAGAIN) {
                        reap();
                        Thread.yield();
                    } else {
                        lastRc = rc;
                        return;
                    }
                }
                problem = "still sending after " + 3 * DEADLINE_MS + " ms";
            } catch (RuntimeException | AssertionError e) {
                problem = String.valueOf(e);
            }
        }

        private void reap() {
            int rc = cq.read(batch, batch.length);
            if (rc > 0) {
                for (int i = 0; i < rc; i++) {
                    if (!"tx".equals(batch[i].context())) {
                        problem = "a successful completion of " + batch[i].context();
                    }
                }
                tally.ok += rc;
            } else if (rc == -Errno.EAVAIL) {
                count(cq, err, tally);
            } else if (rc != -Errno.EAGAIN && rc != -Errno.ENODEV) {
                problem = "client CQ read: " + Errno.name(-rc);
            }
        }
    }

    /** Reads one error completion, which must be ECANCELED; never-matched receives counted apart. */
    private static void count(CompletionQueue cq, CqErrEntry err, Tally tally) {
        assertEquals(1, cq.readErr(err, 0));
        assertEquals("error completion of " + err.context(), Errno.ECANCELED, err.err());
        Object ctx = err.context();
        if (ctx instanceof String && ((String) ctx).startsWith("never-")) {
            tally.neverCanceled++;
        } else {
            tally.canceled++;
        }
    }

    /** Reads {@code cq} until it answers {@code -ENODEV}: departed and drained. */
    private static void drain(CompletionQueue cq, Tally tally) {
        CqEntry[] entries = {new CqEntry(), new CqEntry(), new CqEntry(), new CqEntry()};
        CqErrEntry err = new CqErrEntry();
        for (int guard = 0; guard < 1_000_000; guard++) {
            int rc = cq.read(entries, entries.length);
            if (rc == -Errno.ENODEV) {
                return;
            }
            if (rc == -Errno.EAVAIL) {
                count(cq, err, tally);
            } else {
                assertTrue("CQ read after the departure: " + Errno.name(-rc), rc > 0);
                tally.ok += rc;
            }
        }
        fail("the CQ never drained");
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
            assertFalse("an empty message", e.getMessage() == null || e.getMessage().isEmpty());
        }
    }
}
