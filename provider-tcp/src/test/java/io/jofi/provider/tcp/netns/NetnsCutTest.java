package io.jofi.provider.tcp.netns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A network that goes away under a JOFI MSG connection (provider-tcp/README.md, "Failure
 * model"), with the provider's default settings: two namespaces per case ({@link NetnsPair}),
 * a child JVM in each ({@link MsgStreamChild}). The cases run at once, each in its own pair, so
 * the set takes about as long as its longest case (the slow consumer's 25 s pause).
 * <ul>
 *   <li>a 64 KiB stream, the link set down after 2 s: both sides report the cut (an error
 *       completion or event, one FI_SHUTDOWN) within the bound, every posted operation completes;
 *   <li>the same with the interface removed;
 *   <li>an idle connection (receives posted, nothing sent) whose link goes down: reported by
 *       keepalive within its bound;
 *   <li>a receiver that stops posting receives for 25 s (alive, its kernel acknowledging):
 *       nothing is reported, every message arrives once, in order;
 *   <li>the link down while the server holds the connection request (the CM exchange): the
 *       client's connect fails with an error event in bounded time;
 *   <li>RDM: the link down long enough for the connection to fail (a 3 s user timeout and 1 s
 *       keepalive here, to keep the case short): the sends waiting fail, and once the link is
 *       back the same endpoint's next sends reach the same listener; every send that completed
 *       was delivered.
 * </ul>
 * The measured times are printed ("[netns] ...") for the README's failure model.
 */
@Timeout(150)
class NetnsCutTest {
    /** The bound asserted: the target is 20 s (15 s TCP_USER_TIMEOUT and keepalive); generous for a loaded machine. */
    static final long BOUND_MS = 30_000;
    private static final Pattern ERROR = Pattern.compile("^(error|shutdown) (\\d+).*");
    private static final Pattern FINAL = Pattern.compile("^final posted=(\\d+) ok=(\\d+) errors=(\\d+) shutdowns=(\\d+)$");
    private static final ExecutorService CASES = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "netns-cut-case");
        t.setDaemon(true);
        return t;
    });
    private static final Map<String, Future<String>> RESULTS = new ConcurrentHashMap<>();
    private static final List<NetnsPair> PAIRS = new ArrayList<>();

    @BeforeAll
    static void startEveryCase() {
        Netns.assumeUsable();
        start("cut", () -> cut(false));
        start("removed", () -> cut(true));
        start("idle", NetnsCutTest::idle);
        start("slow", NetnsCutTest::slowConsumer);
        start("setup", NetnsCutTest::setupCut);
        start("rxm", NetnsCutTest::rxmReconnects);
    }

    private static void start(String name, Callable<String> c) {
        RESULTS.put(name, CASES.submit(c));
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

    private static String result(String name) throws Exception {
        String r = RESULTS.get(name).get(140, TimeUnit.SECONDS);
        System.err.println("[netns] " + name + ": " + r);
        return r;
    }

    @Test
    void linkDownMidStreamIsReportedOnBothSidesInBoundedTime() throws Exception {
        result("cut");
    }

    @Test
    void interfaceRemovedMidStreamIsReportedOnBothSidesInBoundedTime() throws Exception {
        result("removed");
    }

    @Test
    void idleConnectionsCutIsReportedWithinTheKeepaliveBound() throws Exception {
        result("idle");
    }

    @Test
    void slowButLiveConsumerIsNotDeclaredDead() throws Exception {
        result("slow");
    }

    @Test
    void linkDownDuringTheConnectionExchangeFailsTheConnect() throws Exception {
        result("setup");
    }

    @Test
    void rdmTrafficResumesWhenTheLinkIsBackWithoutReopening() throws Exception {
        result("rxm");
    }

    private static String rxmReconnects() throws Exception {
        NetnsPair pair = pair("rxm");
        String addr = pair.address(pair.a, false);
        List<String> props = List.of("jofi.tcp.userTimeout=3000", "jofi.tcp.keepAliveIdle=1", "jofi.tcp.keepAliveInterval=1");
        int last = 99;
        NsProcess server = pair.start(pair.a, ChildJvm.command(RdmRetryChild.class, props,
                List.of("server", addr, "7401", Integer.toString(last))), List.of());
        server.awaitLine("listening"::equals, Duration.ofSeconds(30));
        NsProcess client = pair.start(pair.b, ChildJvm.command(RdmRetryChild.class, props,
                List.of("client", addr, "7401", Integer.toString(last))), List.of());
        client.awaitLine("ok 20"::equals, Duration.ofSeconds(30));
        long cutAt = System.currentTimeMillis();
        pair.down(pair.b);
        String error = client.awaitLine(l -> l.startsWith("error "), Duration.ofMillis(BOUND_MS));
        long failedAfter = Long.parseLong(error.split(" ")[1]) - cutAt;
        Thread.sleep(4000); // the server's side fails too (keepalive), so the new request is a fresh one
        long upAt = System.currentTimeMillis();
        pair.up(pair.b);
        String end = client.awaitLine(l -> l.startsWith("final "), Duration.ofSeconds(40));
        long resumedAfter = System.currentTimeMillis() - upAt;
        server.assertSucceeded(Duration.ofSeconds(10));
        java.util.Set<String> got = new java.util.HashSet<>();
        for (String l : server.output()) {
            if (l.startsWith("got ")) {
                got.add(l.substring(4));
            }
        }
        for (String l : client.output()) {
            if (l.startsWith("ok ")) {
                assertTrue(got.contains(l.substring(3)), "message " + l.substring(3) + " completed but never arrived\n"
                        + server.transcript() + client.transcript());
            }
        }
        return "RDM with the link down: send failed after " + failedAfter + " ms; link up: all " + (last + 1)
                + " messages through " + resumedAfter + " ms later (" + end + ")";
    }

    private static NsProcess child(NetnsPair pair, String ns, String role, String address, List<String> opts) {
        List<String> args = new ArrayList<>(List.of(role, address, "7400"));
        args.addAll(opts);
        return pair.start(ns, ChildJvm.command(MsgStreamChild.class, List.of(), args), List.of());
    }

    private static String cut(boolean remove) throws Exception {
        NetnsPair pair = pair(remove ? "rm" : "cut");
        String addr = pair.address(pair.a, false);
        NsProcess server = child(pair, pair.a, "server", addr, List.of());
        server.awaitLine("listening"::equals, Duration.ofSeconds(30));
        NsProcess client = child(pair, pair.b, "client", addr, List.of("gapMicros=500"));
        client.awaitLine("connected"::equals, Duration.ofSeconds(30));
        server.awaitLine(l -> l.startsWith("received "), Duration.ofSeconds(30));
        Thread.sleep(2000);
        long cutAt = System.currentTimeMillis();
        if (remove) {
            pair.removeLink(pair.b);
        } else {
            pair.down(pair.b);
        }
        long sender = reported(client, cutAt, true);
        long receiver = reported(server, cutAt, true);
        return (remove ? "interface removed" : "link down") + " mid-stream: sender reported after " + sender
                + " ms, receiver after " + receiver + " ms";
    }

    private static String idle() throws Exception {
        NetnsPair pair = pair("idle");
        String addr = pair.address(pair.a, true);
        NsProcess server = child(pair, pair.a, "server", addr, List.of("mode=idle"));
        server.awaitLine("listening"::equals, Duration.ofSeconds(30));
        NsProcess client = child(pair, pair.b, "client", addr, List.of("mode=idle"));
        client.awaitLine("connected"::equals, Duration.ofSeconds(30));
        server.awaitLine("connected"::equals, Duration.ofSeconds(30));
        Thread.sleep(1000);
        long cutAt = System.currentTimeMillis();
        pair.down(pair.a);
        long c = reported(client, cutAt, true);
        long s = reported(server, cutAt, true);
        return "idle connection (IPv6) cut: reported after " + c + " ms and " + s + " ms";
    }

    private static String slowConsumer() throws Exception {
        NetnsPair pair = pair("slow");
        String addr = pair.address(pair.a, false);
        int messages = 600;
        NsProcess server = child(pair, pair.a, "server", addr,
                List.of("pauseAfter=100", "pauseMs=25000", "messages=" + messages));
        server.awaitLine("listening"::equals, Duration.ofSeconds(30));
        NsProcess client = child(pair, pair.b, "client", addr, List.of("messages=" + messages, "gapMicros=200"));
        server.awaitLine(l -> l.startsWith("paused "), Duration.ofSeconds(30));
        server.awaitLine(l -> l.startsWith("resumed "), Duration.ofSeconds(40));
        String last = server.awaitLine(l -> l.startsWith("final") || l.startsWith("error") || l.startsWith("shutdown"),
                Duration.ofSeconds(40));
        assertEquals("final posted=" + (messages + 0) + " ok=" + messages + " errors=0 shutdowns=0",
                last.replaceAll("posted=\\d+", "posted=" + messages), server.transcript() + client.transcript());
        String sent = client.awaitLine(l -> l.startsWith("final") || l.startsWith("error") || l.startsWith("shutdown"),
                Duration.ofSeconds(10));
        assertEquals("final posted=" + messages + " ok=" + messages + " errors=0 shutdowns=0", sent, client.transcript());
        return "receiver paused 25 s: no error, " + messages + " messages in order";
    }

    private static String setupCut() throws Exception {
        NetnsPair pair = pair("cm");
        String addr = pair.address(pair.a, false);
        NsProcess server = child(pair, pair.a, "server", addr, List.of("mode=noaccept"));
        server.awaitLine("listening"::equals, Duration.ofSeconds(30));
        NsProcess client = child(pair, pair.b, "client", addr, List.of());
        server.awaitLine("connreq"::equals, Duration.ofSeconds(30));
        long cutAt = System.currentTimeMillis();
        pair.down(pair.a);
        String line = client.awaitLine(l -> l.startsWith("error ") || l.equals("connected"), Duration.ofMillis(BOUND_MS + 5000));
        assertTrue(line.startsWith("error "), client.transcript());
        long ms = Long.parseLong(line.split(" ")[1]) - cutAt;
        assertTrue(ms < BOUND_MS, "connect failed only after " + ms + " ms\n" + client.transcript());
        return "link down during the CM exchange: connect failed after " + ms + " ms (" + line + ")";
    }

    /**
     * The ms from {@code cutAt} to the first error or FI_SHUTDOWN {@code p} printed (asserted
     * below {@link #BOUND_MS}), then its account: every posted operation completed, one FI_SHUTDOWN.
     */
    private static long reported(NsProcess p, long cutAt, boolean pending) {
        String first = p.awaitLine(l -> ERROR.matcher(l).matches(), Duration.ofMillis(BOUND_MS + 5000));
        Matcher m = ERROR.matcher(first);
        assertTrue(m.matches());
        long ms = Long.parseLong(m.group(2)) - cutAt;
        assertTrue(ms < BOUND_MS, "reported only after " + ms + " ms\n" + p.transcript());
        String last = p.awaitLine(l -> l.startsWith("final "), Duration.ofSeconds(15));
        Matcher f = FINAL.matcher(last);
        assertTrue(f.matches(), last);
        long posted = Long.parseLong(f.group(1));
        long ok = Long.parseLong(f.group(2));
        long errors = Long.parseLong(f.group(3));
        assertEquals(posted, ok + errors, "every posted operation completed\n" + p.transcript());
        assertEquals("1", f.group(4), "exactly one FI_SHUTDOWN\n" + p.transcript());
        if (pending) {
            assertTrue(errors > 0, "operations were pending at the cut\n" + p.transcript());
        }
        return ms;
    }
}
