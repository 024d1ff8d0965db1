package io.jofi.provider.tcp.netns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Errno;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Listeners across a network that goes away, and connects into one that is not there
 * (provider-tcp/README.md, "Failure model"), with the provider's default settings. Each case
 * has its pair ({@link NetnsPair}) and they run at once:
 * <ul>
 *   <li>a MSG passive endpoint ({@link ListenerChild}) whose connection is cut mid-stream, by the
 *       link set down and then by the interface removed: after each, once the link is back (the
 *       veth made anew), it accepts 20 new connections ({@link ChurnChild}), each message arrives;
 *   <li>a MSG connect while the server's link is down (the client's end has no carrier, its SYNs
 *       go nowhere): the connect fails with an error event within the bound; once the link is up
 *       the same listener serves new connections;
 *   <li>the same with the link up but the server's namespace firewalled (its answers dropped);
 *   <li>RDM (rxm) sends to a firewalled peer: they fail within the bound, and once the firewall
 *       is gone the same endpoint's sends reach the same listener ({@link RdmRetryChild}).
 * </ul>
 * The measured times are printed ("[netns] ...") for the README's failure model.
 */
@Timeout(150)
class NetnsListenerTest {
    private static final long BOUND_MS = NetnsCutTest.BOUND_MS;
    private static final int PORT = 7403;
    private static final ExecutorService CASES = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "netns-listener-case");
        t.setDaemon(true);
        return t;
    });
    private static final Map<String, Future<String>> RESULTS = new ConcurrentHashMap<>();
    private static final List<NetnsPair> PAIRS = new ArrayList<>();

    @BeforeAll
    static void startEveryCase() {
        Netns.assumeUsable();
        RESULTS.put("survives", CASES.submit(NetnsListenerTest::listenerSurvivesCuts));
        RESULTS.put("linkdown", CASES.submit(() -> connectIntoACut(false)));
        RESULTS.put("firewall", CASES.submit(() -> connectIntoACut(true)));
        RESULTS.put("rdm", CASES.submit(NetnsListenerTest::rdmIntoAFirewall));
    }

    @AfterAll
    static void removeEveryPair() {
        CASES.shutdownNow();
        synchronized (PAIRS) {
            PAIRS.forEach(NetnsPair::close);
        }
    }

    private static NetnsPair pair(String tag) {
        NetnsPair p = new NetnsPair(tag, 1500);
        synchronized (PAIRS) {
            PAIRS.add(p);
        }
        return p;
    }

    private static void result(String name) throws Exception {
        try {
            System.err.println("[netns] " + name + ": " + RESULTS.get(name).get(140, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            throw (Error) e.getCause();
        }
    }

    @Test
    void msgListenerAcceptsAfterTheLinkWasCutAndAfterItsInterfaceWasRemoved() throws Exception {
        result("survives");
    }

    @Test
    void msgConnectWhileThePeersLinkIsDownFailsInBoundedTime() throws Exception {
        result("linkdown");
    }

    @Test
    void msgConnectIntoAFirewalledNamespaceFailsInBoundedTime() throws Exception {
        result("firewall");
    }

    @Test
    void rdmSendsIntoAFirewalledNamespaceFailInBoundedTimeAndResumeAfter() throws Exception {
        result("rdm");
    }

    private static NsProcess listener(NetnsPair pair) {
        NsProcess server = pair.start(pair.a, ChildJvm.command(ListenerChild.class, List.of(),
                List.of(pair.address(pair.a, false), Integer.toString(PORT))), List.of());
        server.awaitLine("listening"::equals, Duration.ofSeconds(30));
        return server;
    }

    /** {@code n} connections, one after another, from namespace b: each accepted, its message received. */
    private static void churn(NetnsPair pair, NsProcess server, int n, int acceptedBefore) {
        NsProcess client = pair.start(pair.b, ChildJvm.command(ChurnChild.class, List.of(),
                List.of("client", pair.address(pair.a, false), Integer.toString(PORT), Integer.toString(n))), List.of());
        if (client.awaitExit(Duration.ofSeconds(60)) != 0) {
            throw new AssertionError("new connections to the listener failed\n" + client.transcript() + server.transcript());
        }
        server.awaitLine(("accepted " + (acceptedBefore + n))::equals, Duration.ofSeconds(10));
    }

    /** A stream into the listener, cut (link down, or interface removed), reported, the link back; then new connections. */
    private static long cutStream(NetnsPair pair, NsProcess server, int id, boolean remove) {
        NsProcess client = pair.start(pair.b, ChildJvm.command(MsgStreamChild.class, List.of(),
                List.of("client", pair.address(pair.a, false), Integer.toString(PORT), "gapMicros=500")), List.of());
        server.awaitLine(("accepted " + id)::equals, Duration.ofSeconds(30));
        client.awaitLine(l -> l.startsWith("sent ") && !l.equals("sent 0"), Duration.ofSeconds(30));
        long cutAt = System.currentTimeMillis();
        if (remove) {
            pair.removeLink(pair.b);
        } else {
            pair.down(pair.b);
        }
        String end = server.awaitLine(l -> l.startsWith("shutdown " + id + " "), Duration.ofMillis(BOUND_MS + 5000));
        long reported = Long.parseLong(end.split(" ")[2]) - cutAt;
        assertTrue(reported < BOUND_MS, "the cut reported after " + reported + " ms\n" + server.transcript());
        assertTrue(end.matches("shutdown " + id + " \\d+ received=[1-9]\\d* errors=[1-9]\\d*"),
                "messages arrived, the receives still posted failed\n" + server.transcript());
        client.awaitLine(l -> l.startsWith("final "), Duration.ofMillis(BOUND_MS + 5000));
        if (remove) {
            pair.link();
        } else {
            pair.up(pair.b);
        }
        return reported;
    }

    private static String listenerSurvivesCuts() throws Exception {
        NetnsPair pair = pair("lsn");
        NsProcess server = listener(pair);
        long down = cutStream(pair, server, 1, false);
        churn(pair, server, 20, 1);
        long removed = cutStream(pair, server, 22, true);
        churn(pair, server, 20, 22);
        assertTrue(server.isAlive(), server.transcript());
        return "listener: stream cut by link down (reported after " + down + " ms) and by the interface removed ("
                + removed + " ms); after each, 20 new connections accepted and served";
    }

    private static String connectIntoACut(boolean firewall) throws Exception {
        NetnsPair pair = pair(firewall ? "fw" : "ldn");
        NsProcess server = listener(pair);
        if (firewall) {
            pair.firewall(pair.a, pair.b, true);
        } else {
            pair.down(pair.a);
        }
        NsProcess client = pair.start(pair.b, ChildJvm.command(MsgStreamChild.class, List.of(),
                List.of("client", pair.address(pair.a, false), Integer.toString(PORT))), List.of());
        String connecting = client.awaitLine(l -> l.startsWith("connecting "), Duration.ofSeconds(30));
        String line = client.awaitLine(l -> l.startsWith("error ") || l.equals("connected"), Duration.ofMillis(BOUND_MS + 5000));
        assertTrue(line.startsWith("error "), client.transcript());
        long ms = Long.parseLong(line.split(" ")[1]) - Long.parseLong(connecting.split(" ")[1]);
        assertTrue(ms < BOUND_MS, "the connect failed only after " + ms + " ms\n" + client.transcript());
        // "error T ERR PROV_ERRNO": the kernel's reason as provErrno, a dropped SYN told from a refusal
        String[] f = line.split(" ");
        if (firewall) {
            assertEquals(Errno.ECONNREFUSED + " " + Errno.ETIMEDOUT, f[2] + " " + f[3], "nobody answered: " + line);
        } else {
            assertTrue(f[2].equals(f[3]) && (f[2].equals(Integer.toString(Errno.ENETUNREACH))
                    || f[2].equals(Integer.toString(Errno.EHOSTUNREACH))), "unreachable: " + line);
        }
        client.awaitExit(Duration.ofSeconds(10));
        if (firewall) {
            pair.firewall(pair.a, pair.b, false);
        } else {
            pair.up(pair.a);
        }
        churn(pair, server, 5, 0);
        return (firewall ? "firewalled peer" : "peer's link down") + ": connect failed after " + ms + " ms (" + line
                + "); the listener then served 5 connections";
    }

    private static String rdmIntoAFirewall() throws Exception {
        NetnsPair pair = pair("rfw");
        String addr = pair.address(pair.a, false);
        int last = 9;
        NsProcess server = pair.start(pair.a, ChildJvm.command(RdmRetryChild.class, List.of(),
                List.of("server", addr, Integer.toString(PORT), Integer.toString(last))), List.of());
        server.awaitLine("listening"::equals, Duration.ofSeconds(30));
        pair.firewall(pair.a, pair.b, true);
        NsProcess client = pair.start(pair.b, ChildJvm.command(RdmRetryChild.class, List.of(),
                List.of("client", addr, Integer.toString(PORT), Integer.toString(last))), List.of());
        String sending = client.awaitLine(l -> l.startsWith("sending "), Duration.ofSeconds(30));
        String error = client.awaitLine(l -> l.startsWith("error ") || l.startsWith("ok "), Duration.ofMillis(BOUND_MS + 5000));
        assertTrue(error.startsWith("error "), client.transcript());
        long ms = Long.parseLong(error.split(" ")[1]) - Long.parseLong(sending.split(" ")[1]);
        assertTrue(ms < BOUND_MS, "the send failed only after " + ms + " ms\n" + client.transcript());
        long liftedAt = System.currentTimeMillis();
        pair.firewall(pair.a, pair.b, false);
        client.awaitLine(l -> l.startsWith("final "), Duration.ofSeconds(60));
        long resumed = System.currentTimeMillis() - liftedAt;
        server.assertSucceeded(Duration.ofSeconds(10));
        return "RDM into a firewall: the send failed after " + ms + " ms (" + error + "); firewall lifted: all "
                + (last + 1) + " messages through " + resumed + " ms later";
    }
}
