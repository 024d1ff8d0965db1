package io.jofi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.jofi.Addresses;
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
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.Progress;
import io.jofi.spi.FabricProvider;
import io.jofi.spi.util.AbstractFabricProvider;
import io.jofi.spi.util.ProviderSetting;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.concurrent.atomic.AtomicLong;
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
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * A provider setting changed through Configuration Admin while traffic runs drops no
 * connection (README "Failure model"; the settings' descriptions): the providers apply it by DS {@code @Modified}, so the
 * component is not deactivated (which would depart every open endpoint, R15) and its
 * {@code FabricProvider} service is not registered again; the new value shapes what is opened
 * afterwards. Traffic: a tcp MSG connection (round trips), a tcp RDM pair and an shm RDM pair,
 * all AUTO progress, moved by one thread during the whole change.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class LiveSettingsIT {
    private static final long DEADLINE_MS = 10_000;
    /** Exchanges each pair completes before the change, and again after it. */
    private static final long FLOWING = 200;

    @Inject
    private BundleContext context;

    @Inject
    private Fabrics fabrics;

    @Inject
    private ConfigurationAdmin configurationAdmin;

    private final RecordingListener listener = new RecordingListener();

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
    public void aSettingsChangeUnderTrafficDropsNoConnectionAndAppliesToNewObjects() throws Exception {
        ServiceReference<FabricProvider> tcpRef = provider(JofiContainer.TCP_NAME);
        ServiceReference<FabricProvider> shmRef = provider(JofiContainer.SHM_NAME);
        Object tcpId = tcpRef.getProperty(Constants.SERVICE_ID);
        Object shmId = shmRef.getProperty(Constants.SERVICE_ID);
        int low = twoFreePorts();

        try (MsgPair msg = new MsgPair();
             RdmPair tcpRdm = new RdmPair(fabrics, rdmInfo(JofiContainer.TCP_NAME));
             RdmPair shmRdm = new RdmPair(fabrics, rdmInfo(JofiContainer.SHM_NAME))) {
            Traffic traffic = new Traffic(msg, tcpRdm, shmRdm);
            traffic.start();
            try {
                traffic.awaitRounds(FLOWING);

                update("io.jofi.provider.tcp", "portLow", low, "portHigh", low + 1, "keepAliveIdle", 9);
                update("io.jofi.provider.shm", "cmaThreshold", 0, "peerCheckMillis", 250);
                awaitSetting(tcpRef, "jofi.tcp.portLow", String.valueOf(low));
                awaitSetting(tcpRef, "jofi.tcp.keepAliveIdle", "9");
                awaitSetting(shmRef, "jofi.shm.cmaThreshold", "0");

                // traffic goes on over the very same endpoints
                traffic.awaitRounds(traffic.rounds() + FLOWING);
            } finally {
                traffic.finish();
            }
            assertNull("traffic failed: " + traffic.problem, traffic.problem);
            // no connection was lost: no FI_SHUTDOWN (nor anything else) on the MSG pair's EQs
            EqEntry e = new EqEntry();
            assertEquals(-Errno.EAGAIN, msg.clientEq.read(e, 0));
            assertEquals(-Errno.EAGAIN, msg.serverEq.read(e, 0));
            msg.roundTrip();
        }

        // the providers were not deactivated: the same services, no departure heard
        assertEquals(tcpId, provider(JofiContainer.TCP_NAME).getProperty(Constants.SERVICE_ID));
        assertEquals(shmId, provider(JofiContainer.SHM_NAME).getProperty(Constants.SERVICE_ID));
        assertFalse("a provider departed: " + listener.pending(), listener.pending().contains("removed"));

        // the new value is in effect for what is opened now: a listener on service 0 binds the range
        Info info = fabrics.getInfo("127.0.0.1", "0", Fi.FI_SOURCE, msgHints()).get(0);
        try (Fabric fabric = fabrics.fabric(info.fabricAttr(), null);
             EventQueue eq = fabric.openEq(new EqAttr(), null)) {
            PassiveEndpoint pep = fabric.passiveEndpoint(info, null);
            pep.bind(eq, 0);
            pep.listen();
            int port = Addresses.fromSockaddr(pep.getName()).getPort();
            assertTrue("port " + port + " is outside the configured " + low + ".." + (low + 1),
                    port == low || port == low + 1);
            pep.close();
        }
    }

    private ServiceReference<FabricProvider> provider(String name) throws Exception {
        for (ServiceReference<FabricProvider> ref : context.getServiceReferences(FabricProvider.class, null)) {
            FabricProvider p = context.getService(ref);
            try {
                if (p != null && name.equals(p.name())) {
                    return ref;
                }
            } finally {
                context.ungetService(ref);
            }
        }
        throw new AssertionError("no " + name + " provider service");
    }

    /** Sets {@code keyValues} in the configuration {@code pid} (bound to no bundle: "?" lets SCR take it). */
    private void update(String pid, Object... keyValues) throws IOException {
        org.osgi.service.cm.Configuration c = configurationAdmin.getConfiguration(pid, "?");
        Dictionary<String, Object> props = c.getProperties() == null ? new Hashtable<>() : c.getProperties();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        c.update(props);
    }

    /** Waits until the provider behind {@code ref} has {@code value} in effect for {@code name}. */
    private void awaitSetting(ServiceReference<FabricProvider> ref, String name, String value) throws Exception {
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        String now = null;
        while (System.currentTimeMillis() < deadline) {
            AbstractFabricProvider p = (AbstractFabricProvider) context.getService(ref);
            assertNotNull("the provider service went away", p);
            try {
                for (ProviderSetting s : p.settings()) {
                    if (s.name().equals(name)) {
                        now = s.value();
                    }
                }
            } finally {
                context.ungetService(ref);
            }
            if (value.equals(now)) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError(name + " is " + now + ", not " + value + ", " + DEADLINE_MS + " ms after the update");
    }

    private Info rdmInfo(String provider) throws Exception {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.RDM);
        hints.fabricAttr().provName(provider);
        hints.domainAttr().dataProgress(Progress.AUTO).controlProgress(Progress.AUTO);
        return fabrics.getInfo(null, null, 0, hints).get(0);
    }

    private static Info msgHints() {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.MSG);
        hints.fabricAttr().provName(JofiContainer.TCP_NAME);
        hints.domainAttr().dataProgress(Progress.AUTO).controlProgress(Progress.AUTO);
        return hints;
    }

    /** A port p such that p and p + 1 are free on 127.0.0.1 just now. */
    private static int twoFreePorts() throws IOException {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        for (int attempt = 0; attempt < 200; attempt++) {
            int p;
            try (ServerSocket s = new ServerSocket(0, 1, lo)) {
                p = s.getLocalPort();
            }
            if (p >= 65535) {
                continue;
            }
            try (ServerSocket s1 = new ServerSocket(p, 1, lo); ServerSocket s2 = new ServerSocket(p + 1, 1, lo)) {
                return s1.getLocalPort();
            } catch (IOException busy) {
                // another pair
            }
        }
        throw new AssertionError("no two consecutive free ports");
    }

    /** One thread moving all three pairs, round after round, until told to finish or one fails. */
    private static final class Traffic extends Thread {
        private final MsgPair msg;
        private final RdmPair tcpRdm;
        private final RdmPair shmRdm;
        private final AtomicLong rounds = new AtomicLong();
        private volatile boolean finish;
        volatile Throwable problem;

        Traffic(MsgPair msg, RdmPair tcpRdm, RdmPair shmRdm) {
            super("live-settings-traffic");
            this.msg = msg;
            this.tcpRdm = tcpRdm;
            this.shmRdm = shmRdm;
        }

        @Override
        public void run() {
            long tcpNext = 0;
            long shmNext = 0;
            try {
                while (!finish) {
                    msg.roundTrip();
                    tcpNext = tcpRdm.exchange(tcpNext, 1);
                    shmNext = shmRdm.exchange(shmNext, 1);
                    rounds.incrementAndGet();
                }
            } catch (Throwable t) {
                problem = t;
            }
        }

        long rounds() {
            return rounds.get();
        }

        void awaitRounds(long n) throws InterruptedException {
            long deadline = System.currentTimeMillis() + 3 * DEADLINE_MS;
            while (rounds.get() < n) {
                assertNull("traffic failed: " + problem, problem);
                assertTrue("only " + rounds.get() + " of " + n + " rounds", System.currentTimeMillis() < deadline);
                Thread.sleep(5);
            }
        }

        void finish() throws InterruptedException {
            finish = true;
            join(DEADLINE_MS);
            assertFalse("the traffic thread did not end", isAlive());
        }
    }

    /** Two connected tcp MSG endpoints on 127.0.0.1 (AUTO progress), each with its EQ and CQ. */
    private final class MsgPair implements AutoCloseable {
        final Fabric fabric;
        final Domain domain;
        final EventQueue serverEq;
        final EventQueue clientEq;
        final CompletionQueue serverCq;
        final CompletionQueue clientCq;
        final PassiveEndpoint pep;
        final Endpoint server;
        final Endpoint client;
        private final CqEntry[] one = {new CqEntry()};

        MsgPair() throws Exception {
            Info info = fabrics.getInfo("127.0.0.1", "0", Fi.FI_SOURCE, msgHints()).get(0);
            fabric = fabrics.fabric(info.fabricAttr(), null);
            domain = fabric.domain(info, null);
            serverEq = fabric.openEq(new EqAttr(), null);
            clientEq = fabric.openEq(new EqAttr(), null);
            serverCq = domain.openCq(new CqAttr().format(CqFormat.DATA), null);
            clientCq = domain.openCq(new CqAttr().format(CqFormat.DATA), null);
            pep = fabric.passiveEndpoint(info, null);
            pep.bind(serverEq, 0);
            pep.listen();
            client = domain.endpoint(info, "client");
            client.bind(clientEq, 0);
            client.bind(clientCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            client.enable();
            client.connect(pep.getName(), null);
            EqEntry req = await(serverEq, Fi.FI_CONNREQ);
            server = domain.endpoint(req.info(), "server");
            server.bind(serverEq, 0);
            server.bind(serverCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            server.enable();
            server.accept(null);
            await(serverEq, Fi.FI_CONNECTED);
            await(clientEq, Fi.FI_CONNECTED);
        }

        void roundTrip() {
            ByteBuffer rx = ByteBuffer.allocate(16);
            assertEquals(0, server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx"));
            assertEquals(0, client.send(ByteBuffer.wrap(new byte[] {7, 8, 9}), null, Fi.FI_ADDR_UNSPEC, "tx"));
            take(clientCq, "tx");
            take(serverCq, "rx");
            ByteBuffer back = ByteBuffer.allocate(16);
            assertEquals(0, client.recv(back, null, Fi.FI_ADDR_UNSPEC, "back"));
            assertEquals(0, server.send(ByteBuffer.wrap(new byte[] {1, 2}), null, Fi.FI_ADDR_UNSPEC, "reply"));
            take(serverCq, "reply");
            take(clientCq, "back");
        }

        private void take(CompletionQueue cq, Object ctx) {
            long deadline = System.currentTimeMillis() + DEADLINE_MS;
            int rc;
            while ((rc = cq.read(one, 1)) != 1) {
                if (rc == -Errno.EAVAIL) {
                    CqErrEntry e = new CqErrEntry();
                    cq.readErr(e, 0);
                    throw new AssertionError("error completion " + Errno.name(e.err()) + " for " + e.context());
                }
                assertEquals(-Errno.EAGAIN, rc);
                assertTrue("no completion " + ctx + " within " + DEADLINE_MS + " ms", System.currentTimeMillis() < deadline);
                Thread.onSpinWait();
            }
            assertEquals(ctx, one[0].context());
        }

        private EqEntry await(EventQueue eq, int event) {
            long deadline = System.currentTimeMillis() + DEADLINE_MS;
            EqEntry e = new EqEntry();
            while (true) {
                int rc = eq.read(e, 0);
                if (rc > 0) {
                    assertEquals("EQ event", event, e.event());
                    return e;
                }
                assertEquals("EQ read: " + Errno.name(-rc), -Errno.EAGAIN, rc);
                assertTrue("no EQ event " + event + " within " + DEADLINE_MS + " ms", System.currentTimeMillis() < deadline);
                Thread.onSpinWait();
            }
        }

        @Override
        public void close() throws Exception {
            client.close();
            server.close();
            pep.close();
            clientCq.close();
            serverCq.close();
            clientEq.close();
            serverEq.close();
            domain.close();
            fabric.close();
        }
    }
}
