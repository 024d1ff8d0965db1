package io.jofi.provider.tcp.netns;

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
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.Progress;
import io.jofi.provider.tcp.TcpProvider;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * A child JVM in a namespace: one MSG passive endpoint (AUTO progress) that accepts every
 * connection request for as long as it runs, for {@link NetnsListenerTest}: the listener has to
 * outlive the connections it accepted, whatever ended them (a cut link, a removed interface, a
 * firewall). {@code ADDRESS PORT}. Each connection gets {@link #WINDOW} receives of 64 KiB; a
 * 64 KiB message must carry the connection's next sequence number at both ends
 * ({@link MsgStreamChild}'s stream), shorter ones ({@link ChurnChild}'s) are counted. Prints
 * (T: {@code System.currentTimeMillis()}):
 * <pre>
 *   listening
 *   accepted K                       connection K (1, 2, ...) accepted
 *   error K T ERR                    its first error completion
 *   shutdown K T received=N errors=E its FI_SHUTDOWN (the endpoint is closed then)
 *   eq-error T ERR TEXT              an error event of the listener's EQ (the listener goes on)
 *   FAIL ...                         a message out of order or damaged: exit status 1
 * </pre>
 */
public final class ListenerChild {
    private static final int SIZE = MsgStreamChild.SIZE;
    private static final int WINDOW = 4;

    /** One accepted connection: its endpoint, receive buffers and account. */
    private static final class Connection {
        final int id;
        final Endpoint ep;
        final ByteBuffer[] bufs = new ByteBuffer[WINDOW];
        long received;
        long expected;
        long errors;

        Connection(int id, Endpoint ep) {
            this.id = id;
            this.ep = ep;
            for (int i = 0; i < WINDOW; i++) {
                bufs[i] = ByteBuffer.allocateDirect(SIZE);
            }
        }
    }

    /** A posted receive's context: which connection, which buffer. */
    private record Slot(Connection connection, int index) {
    }

    private ListenerChild() {
    }

    public static void main(String[] args) throws Exception {
        TcpProvider provider = new TcpProvider();
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.MSG);
        hints.domainAttr().dataProgress(Progress.AUTO);
        Info info = provider.getInfo(args[0], args[1], Fi.FI_SOURCE, hints).get(0);
        Fabric fabric = provider.fabric(info.fabricAttr(), null);
        Domain domain = fabric.domain(info, null);
        EventQueue eq = fabric.openEq(new EqAttr(), "eq");
        CompletionQueue cq = domain.openCq(new CqAttr().format(CqFormat.DATA).size(1024), "cq");
        PassiveEndpoint pep = fabric.passiveEndpoint(info, "pep");
        pep.bind(eq, 0);
        pep.listen();
        say("listening");
        Map<Object, Connection> open = new HashMap<>();
        EqEntry event = new EqEntry();
        EqErrEntry eqErr = new EqErrEntry();
        CqEntry[] done = {new CqEntry(), new CqEntry(), new CqEntry(), new CqEntry()};
        CqErrEntry cqErr = new CqErrEntry();
        int accepted = 0;
        while (true) {
            boolean idle = true;
            int rc = eq.read(event, 0);
            if (rc == 1) {
                idle = false;
                if (event.event() == Fi.FI_CONNREQ) {
                    Connection c = new Connection(++accepted, domain.endpoint(event.info(), "conn"));
                    c.ep.bind(eq, 0);
                    c.ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
                    c.ep.enable();
                    for (int i = 0; i < WINDOW; i++) {
                        check(c.ep.recv(c.bufs[i], null, Fi.FI_ADDR_UNSPEC, new Slot(c, i)), "recv");
                    }
                    open.put(c.ep, c);
                    c.ep.accept(null);
                    say("accepted " + c.id);
                } else if (event.event() == Fi.FI_SHUTDOWN) {
                    Connection c = open.remove(event.fid());
                    if (c == null) {
                        fail("FI_SHUTDOWN of an endpoint not open (a second one?)");
                    }
                    drain(cq, done, cqErr);
                    say("shutdown " + c.id + " " + now() + " received=" + c.received + " errors=" + c.errors);
                    c.ep.close();
                }
            } else if (rc == -Errno.EAVAIL) {
                idle = false;
                eq.readErr(eqErr, 0);
                String text = eqErr.errDataSize() > 0
                        ? new String(eqErr.errData(), 0, eqErr.errDataSize(), java.nio.charset.StandardCharsets.UTF_8) : "";
                say("eq-error " + now() + " " + eqErr.err() + " " + text);
            }
            idle &= drain(cq, done, cqErr) == 0;
            if (idle) {
                Thread.sleep(0, 200_000);
            }
        }
    }

    /** Reads completions: checks and reposts receives, counts errors; returns how many it read. */
    private static int drain(CompletionQueue cq, CqEntry[] done, CqErrEntry cqErr) {
        int total = 0;
        while (true) {
            int n = cq.read(done, done.length);
            if (n == -Errno.EAVAIL) {
                cq.readErr(cqErr, 0);
                Connection c = ((Slot) cqErr.context()).connection;
                if (c.errors++ == 0) {
                    say("error " + c.id + " " + now() + " " + cqErr.err());
                }
                total++;
                continue;
            }
            if (n <= 0) {
                return total;
            }
            total += n;
            for (int k = 0; k < n; k++) {
                Slot s = (Slot) done[k].context();
                Connection c = s.connection;
                ByteBuffer b = c.bufs[s.index];
                if (done[k].len() == SIZE) {
                    if (b.getLong(0) != c.expected || b.getLong(SIZE - 8) != c.expected) {
                        fail("connection " + c.id + ", message " + c.expected + ": sequence " + b.getLong(0) + "/"
                                + b.getLong(SIZE - 8));
                    }
                    c.expected++;
                }
                c.received++;
                b.clear();
                int rc = c.ep.recv(b, null, Fi.FI_ADDR_UNSPEC, s);
                if (rc != 0 && rc != -Errno.EOPBADSTATE && rc != -Errno.ENOTCONN && rc != -Errno.ECONNRESET) {
                    fail("recv refused " + rc); // the three: the connection ended meanwhile, its FI_SHUTDOWN follows
                }
            }
        }
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            fail(what + " refused: " + rc);
        }
    }

    private static void fail(String why) {
        say("FAIL " + why);
        System.exit(1);
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static long now() {
        return System.currentTimeMillis();
    }
}
