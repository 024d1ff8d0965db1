package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.Progress;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * Real sockets on 127.0.0.1: a provider, fabric, domain, a listening passive endpoint, and
 * (after {@link #connect}) a connected client/server pair of MSG endpoints with their CQs.
 * Every wait is bounded ({@link #TIMEOUT_MS}).
 */
final class TcpTestBed implements AutoCloseable {
    static final long TIMEOUT_MS = 10_000;

    final TcpProvider provider = new TcpProvider();
    final Info info;
    final Fabric fabric;
    final Domain domain;
    final EventQueue pepEq;
    final EventQueue clientEq;
    final EventQueue serverEq;
    final PassiveEndpoint pep;
    final CompletionQueue clientCq;
    final CompletionQueue serverCq;
    Endpoint client;
    Endpoint server;
    /** Objects a test opened (counters, ...), closed after the endpoints. */
    final java.util.List<io.jofi.Fid> closeLater = new java.util.ArrayList<>();

    TcpTestBed(Progress mode) throws FabricException {
        this(mode, Fi.FI_MSG);
    }

    /** A bed whose endpoints ask for {@code caps} (e.g. FI_TAGGED | FI_RMA | FI_ATOMIC). */
    TcpTestBed(Progress mode, long caps) throws FabricException {
        this(mode, caps, io.jofi.WaitObj.NONE);
    }

    /** As {@link #TcpTestBed(Progress, long)}, the CQs with wait object {@code cqWait} (e.g. for sread). */
    TcpTestBed(Progress mode, long caps, io.jofi.WaitObj cqWait) throws FabricException {
        Info hints = new Info().caps(caps);
        hints.epAttr().type(EpType.MSG);
        hints.domainAttr().dataProgress(mode);
        List<Info> infos = provider.getInfo("127.0.0.1", "0", Fi.FI_SOURCE, hints);
        info = infos.get(0);
        fabric = provider.fabric(info.fabricAttr(), null);
        domain = fabric.domain(info, null);
        pepEq = fabric.openEq(new EqAttr(), "pep-eq");
        clientEq = fabric.openEq(new EqAttr(), "client-eq");
        serverEq = fabric.openEq(new EqAttr(), "server-eq");
        pep = fabric.passiveEndpoint(info, "pep");
        pep.bind(pepEq, 0);
        pep.listen();
        clientCq = domain.openCq(new CqAttr().format(CqFormat.DATA).waitObj(cqWait), "client-cq");
        serverCq = domain.openCq(new CqAttr().format(CqFormat.DATA).waitObj(cqWait), "server-cq");
    }

    /** What a test binds to an endpoint before it is enabled (counters, ...). */
    interface Setup {
        void before(Endpoint ep) throws FabricException;
    }

    /** An enabled client endpoint bound to its EQ and CQ. */
    Endpoint newClient() throws FabricException {
        return newClient(ep -> { });
    }

    /**
     * An enabled client endpoint bound to its EQ and CQ whose info names {@code src} as its
     * source address (fi_getinfo(3) {@code src_addr}: what connect binds).
     */
    Endpoint newClientFrom(InetSocketAddress src) throws FabricException {
        Info mine = info.copy();
        mine.srcAddr(Addresses.toSockaddr(src));
        return newClient(mine, ep -> { });
    }

    private Endpoint newClient(Setup setup) throws FabricException {
        return newClient(info, setup);
    }

    private Endpoint newClient(Info with, Setup setup) throws FabricException {
        Endpoint ep = domain.endpoint(with, "client");
        ep.bind(clientEq, 0);
        ep.bind(clientCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        setup.before(ep);
        ep.enable();
        return ep;
    }

    /** Connects a client with {@code connData}, accepts with {@code acceptData}; both sides CONNECTED. */
    TcpTestBed connect(byte[] connData, byte[] acceptData) throws FabricException {
        return connect(connData, acceptData, ep -> { });
    }

    /** As {@link #connect(byte[], byte[])}, {@code setup} applied to both endpoints ("client", "server") before enable. */
    TcpTestBed connect(byte[] connData, byte[] acceptData, Setup setup) throws FabricException {
        client = newClient(setup);
        client.connect(pep.getName(), connData);
        acceptServer(acceptData, setup);
        awaitEvent(clientEq, Fi.FI_CONNECTED);
        return this;
    }

    /**
     * The server's side of a connection a client asked for: awaits the request, opens
     * {@link #server} bound to its EQ and CQ, accepts with {@code acceptData} ({@code setup}
     * before enable) and awaits its {@code FI_CONNECTED}.
     */
    Endpoint acceptServer(byte[] acceptData, Setup setup) throws FabricException {
        EqEntry req = awaitEvent(pepEq, Fi.FI_CONNREQ);
        server = domain.endpoint(req.info(), "server");
        server.bind(serverEq, 0);
        server.bind(serverCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        setup.before(server);
        server.enable();
        server.accept(acceptData);
        awaitEvent(serverEq, Fi.FI_CONNECTED);
        return server;
    }

    /** Reads one event, expecting {@code event}. */
    static EqEntry awaitEvent(EventQueue eq, int event) {
        EqEntry e = new EqEntry();
        long deadline = System.currentTimeMillis() + TIMEOUT_MS;
        while (true) {
            int rc = eq.read(e, 0);
            if (rc == 1) {
                assertEquals(event, e.event(), "event");
                return e;
            }
            if (rc == -Errno.EAVAIL) {
                EqErrEntry err = new EqErrEntry();
                eq.readErr(err, 0);
                fail("expected event " + event + ", got error " + err.err());
            }
            assertEquals(-Errno.EAGAIN, rc, "eq read");
            if (System.currentTimeMillis() > deadline) {
                fail("no event " + event + " within " + TIMEOUT_MS + " ms");
            }
            Thread.onSpinWait();
        }
    }

    /** Reads one error event. */
    static EqErrEntry awaitEventError(EventQueue eq) {
        EqEntry e = new EqEntry();
        long deadline = System.currentTimeMillis() + TIMEOUT_MS;
        while (true) {
            int rc = eq.read(e, 0);
            if (rc == -Errno.EAVAIL) {
                EqErrEntry err = new EqErrEntry();
                assertEquals(1, eq.readErr(err, 0));
                return err;
            }
            assertEquals(-Errno.EAGAIN, rc, "expected an error event, got event " + (rc == 1 ? e.event() : rc));
            if (System.currentTimeMillis() > deadline) {
                fail("no error event within " + TIMEOUT_MS + " ms");
            }
            Thread.onSpinWait();
        }
    }

    /** Reads one successful completion. */
    static CqEntry awaitCompletion(CompletionQueue cq) {
        CqEntry[] buf = {new CqEntry()};
        long deadline = System.currentTimeMillis() + TIMEOUT_MS;
        while (true) {
            int rc = cq.read(buf, 1);
            if (rc == 1) {
                return buf[0];
            }
            if (rc == -Errno.EAVAIL) {
                CqErrEntry err = new CqErrEntry();
                cq.readErr(err, 0);
                fail("expected a completion, got error " + Errno.strerror(err.err()) + " for " + err.context());
            }
            assertEquals(-Errno.EAGAIN, rc, "cq read");
            if (System.currentTimeMillis() > deadline) {
                fail("no completion within " + TIMEOUT_MS + " ms");
            }
            Thread.onSpinWait();
        }
    }

    /** Reads one error completion. */
    static CqErrEntry awaitError(CompletionQueue cq) {
        CqEntry[] buf = {new CqEntry()};
        long deadline = System.currentTimeMillis() + TIMEOUT_MS;
        while (true) {
            int rc = cq.read(buf, 1);
            if (rc == -Errno.EAVAIL) {
                CqErrEntry err = new CqErrEntry();
                assertEquals(1, cq.readErr(err, 0));
                return err;
            }
            assertTrue(rc == -Errno.EAGAIN, "expected an error completion, got " + rc
                    + (rc == 1 ? " (context " + buf[0].context() + ")" : ""));
            if (System.currentTimeMillis() > deadline) {
                fail("no error completion within " + TIMEOUT_MS + " ms");
            }
            Thread.onSpinWait();
        }
    }

    /** Drives progress on {@code cq} for a while and asserts nothing arrives. */
    static void assertNothing(CompletionQueue cq, long ms) {
        CqEntry[] buf = {new CqEntry()};
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) {
            assertEquals(-Errno.EAGAIN, cq.read(buf, 1), "nothing expected on the CQ");
            Thread.onSpinWait();
        }
    }

    @Override
    public void close() throws Exception {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        pep.close();
        for (io.jofi.Fid f : closeLater) {
            f.close();
        }
        clientCq.close();
        serverCq.close();
        pepEq.close();
        clientEq.close();
        serverEq.close();
        domain.close();
        fabric.close();
    }
}
