package io.jofi.provider.verbs.netns;

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
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.PassiveEndpoint;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One side of the link-cut runs across a veth between two network namespaces
 * ({@code provider-verbs/vm/guest/netns-cut.sh}, which sets the link down and up): it reports
 * when this side learnt of the cut and that every operation it posted completed. One JVM a side
 * runs the scenarios one after another (a JVM's start is what costs most under emulation):
 * <pre>
 *   server|client ADDRESS PORT DIR SCENARIO...        scenario i on PORT + i
 *   msg-stream   MSG: 64 KiB RMA writes, 8 in flight, client to server; the link cut mid-stream
 *   rdm-stream   64 KiB sends over RDM (rxm's credits pace them); once the link is back the client sends again on the same
 *                endpoint (rxm connects again) and the server receives on its own
 *   msg-idle     MSG: one message each way, then idle across the cut; once the link is back,
 *                one message each way again (the connection lives on if no side saw the cut)
 *   msg-connect  MSG: the client connects while the link is down: the EQ's error and its time
 * </pre>
 * The script and the sides talk through lines and files: a side prints {@code @ SCENARIO EVENT
 * EPOCH-MS DETAIL} ({@code streaming}, {@code idle}, {@code error}, {@code shutdown},
 * {@code unseen}, {@code drained}, {@code resumed}, {@code connect-failed}); the script writes
 * {@code DIR/SCENARIO.cut} (the epoch milliseconds of the cut) and {@code DIR/SCENARIO.up}
 * (the link is back). A side that learns nothing within {@code -Dcutcheck.limit} seconds
 * (default 60) of the cut says {@code unseen}, cancels its pending receives and goes on.
 * {@code drained posted=N ok=M err=K pending=P}: P must be 0 (nothing posted is lost).
 * Exits 0 when every scenario ran to its end (the script judges the times), 1 on a failure.
 */
public final class CutCheckChild {
    private static final int SIZE = 64 * 1024;
    private static final int WINDOW = 8;
    private static final int RESUME = 20;
    private static final int RECV = 100;

    private final boolean server;
    private final String scenario;
    private final Path dir;
    private final CompletionQueue cq;
    private final EventQueue eq;
    private final CqEntry[] done = {new CqEntry()};
    private final CqErrEntry err = new CqErrEntry();
    private final EqEntry event = new EqEntry();
    private final ByteBuffer[] bufs = new ByteBuffer[WINDOW];
    private final ByteBuffer[] rbufs = new ByteBuffer[WINDOW];
    /** A send's context is its slot i, a receive's {@link #RECV} + i. */
    private final boolean[] busy = new boolean[WINDOW];
    private final boolean[] recvBusy = new boolean[WINDOW];
    private Endpoint ep;
    private long peer = Fi.FI_ADDR_UNSPEC;
    private long posted;
    private long ok;
    private long failed;
    private boolean errorSeen;
    private boolean shutdownSeen;
    /** While this side cancels its own receives: their {@code ECANCELED} entries are not the cut. */
    private boolean cancelling;

    private CutCheckChild(boolean server, String scenario, Path dir, CompletionQueue cq, EventQueue eq) {
        this.server = server;
        this.scenario = scenario;
        this.dir = dir;
        this.cq = cq;
        this.eq = eq;
        for (int i = 0; i < WINDOW; i++) {
            bufs[i] = ByteBuffer.allocateDirect(SIZE);
            rbufs[i] = ByteBuffer.allocateDirect(SIZE);
        }
    }

    public static void main(String[] args) throws Exception {
        boolean server = args[0].equals("server");
        int port = Integer.parseInt(args[2]);
        Path dir = Path.of(args[3]);
        for (int i = 4; i < args.length; i++) {
            try {
                run(server, args[i], args[1], Integer.toString(port + i - 4), dir);
            } catch (Exception | AssertionError e) {
                say("FAIL " + args[i] + ": " + e);
                e.printStackTrace(System.out);
                System.exit(1);
            }
        }
        System.exit(0);
    }

    private static void run(boolean server, String scenario, String node, String port, Path dir) throws Exception {
        boolean rdm = scenario.startsWith("rdm");
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_RMA | Fi.FI_WRITE | Fi.FI_REMOTE_WRITE);
        hints.epAttr().type(rdm ? EpType.RDM : EpType.MSG);
        hints.domainAttr().mrMode(Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_ALLOCATED | Fi.FI_MR_PROV_KEY);
        hints.domainAttr().dataProgress(Progress.AUTO);
        hints.fabricAttr().provName("verbs");
        List<Info> infos = Fabrics.standalone().getInfo(node, port, server ? Fi.FI_SOURCE : 0, hints);
        if (infos.isEmpty()) {
            throw new AssertionError("no verbs info for " + node);
        }
        Info info = infos.get(0);
        Fabric fabric = Fabrics.standalone().fabric(info.fabricAttr(), null);
        Domain domain = fabric.domain(info, null);
        CutCheckChild c = new CutCheckChild(server, scenario, dir,
                domain.openCq(new CqAttr().format(CqFormat.DATA).size(256), "cq"), fabric.openEq(new EqAttr(), "eq"));
        if (scenario.equals("msg-connect")) {
            c.connectIntoDownLink(fabric, domain, info);
        } else if (rdm) {
            AddressVector av = domain.openAv(new AvAttr(), "av");
            c.ep = domain.endpoint(info, "ep");
            c.ep.bind(av, 0);
            c.ep.bind(c.cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            c.ep.enable();
            if (!server) {
                c.peer = av.insert(info.destAddr());
            }
            c.stream(true);
        } else {
            c.connect(fabric, domain, info);
            if (scenario.equals("msg-idle")) {
                c.idle();
            } else {
                c.writeStream(domain);
            }
            c.awaitFile(scenario + ".up", 600); // the next scenario starts with the link up
        }
        if (c.ep != null) {
            c.ep.close();
        }
        say("[" + scenario + "] end");
    }

    /** MSG: the server accepts one connection, the client connects (again while the server's run does not listen yet). */
    private void connect(Fabric fabric, Domain domain, Info info) throws Exception {
        if (server) {
            PassiveEndpoint pep = fabric.passiveEndpoint(info, "pep");
            pep.bind(eq, 0);
            pep.listen();
            Info req = awaitEvent(Fi.FI_CONNREQ, 300).info();
            open(domain, req);
            for (int i = 0; i < WINDOW; i++) {
                postRecv(i);
            }
            ep.accept(null);
            awaitEvent(Fi.FI_CONNECTED, 60);
            pep.close();
            return;
        }
        long deadline = System.nanoTime() + 300_000_000_000L;
        while (true) {
            open(domain, info);
            for (int i = 0; i < WINDOW; i++) {
                postRecv(i);
            }
            ep.connect(info.destAddr(), null);
            try {
                awaitEvent(Fi.FI_CONNECTED, 60);
                return;
            } catch (AssertionError refused) {
                if (System.nanoTime() > deadline) {
                    throw refused;
                }
                ep.close(); // the server's run listens not yet: again
                posted = 0;
                drainQuietly();
                Thread.sleep(250);
            }
        }
    }

    private void open(Domain domain, Info info) throws Exception {
        ep = domain.endpoint(info, "ep");
        ep.bind(eq, 0);
        ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        ep.enable();
    }

    /**
     * The client sends (the server receives) 64 KiB messages, 8 in flight, until this side sees
     * the cut (an error completion or, MSG, {@code FI_SHUTDOWN}) or the limit; then the
     * operations it posted drain. RDM: once the link is back, {@link #resume}.
     */
    private void stream(boolean rdm) throws Exception {
        if (server && rdm) {
            for (int i = 0; i < WINDOW; i++) {
                postRecv(i);
            }
        }
        if (!server && rdm) { // the first send connects: tried again while the server's run does not listen yet
            ByteBuffer hello = bufs[0].clear().limit(64);
            long deadline = System.nanoTime() + 300_000_000_000L;
            while (true) {
                check(ep.send(hello, null, peer, 0), "send hello");
                busy[0] = true;
                posted++;
                while (busy[0]) {
                    poll();
                }
                if (!errorSeen) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no connection to the server within 300 s");
                }
                errorSeen = false;
                Thread.sleep(250);
            }
        }
        long successes = 0;
        long cutMs = 0;
        boolean announced = false;
        while (!errorSeen && !shutdownSeen) {
            if (!server) {
                for (int i = 0; i < WINDOW; i++) {
                    if (!busy[i]) {
                        int rc = ep.send(bufs[i].clear(), null, peer, i);
                        if (rc == 0) {
                            busy[i] = true;
                            posted++;
                        } else if (rc != -Errno.EAGAIN) {
                            check(rc, "send");
                        }
                    }
                }
            }
            long before = ok;
            int slot = poll();
            if (ok > before) {
                successes++;
                if (slot >= RECV) {
                    postRecv(slot - RECV);
                }
            }
            if (!announced && successes >= 100) {
                announced = true;
                mark("streaming", "after " + successes + " messages");
            }
            if (announced && cutMs == 0) {
                cutMs = cutTime();
            }
            if (cutMs != 0 && System.currentTimeMillis() - cutMs > limitMs()) {
                mark("unseen", "nothing within " + limitMs() / 1000 + " s of the cut");
                break;
            }
            if (slot < 0 && ok == before) {
                Thread.sleep(0, 200_000);
            }
        }
        drain(rdm && server ? 0 : 30);
        if (rdm) {
            resume();
        }
    }

    /**
     * MSG: the client writes 64 KiB by RMA into the server's registered target, 8 in flight,
     * until this side sees the cut (an error completion or {@code FI_SHUTDOWN}) or the limit;
     * then what it posted drains. Writes, not sends: iWARP has no RNR retry, so a send that finds
     * no receive posted would end the connection by itself (resource management DISABLED).
     */
    private void writeStream(Domain domain) throws Exception {
        ByteBuffer target = ByteBuffer.allocateDirect(WINDOW * SIZE);
        long addr = 0;
        long key = 0;
        if (server) {
            MemoryRegion mr = domain.register(target, Fi.FI_REMOTE_WRITE, 0, 0x6375, 0, "target");
            check(ep.send(bufs[0].clear().putLong(0, mr.address()).putLong(8, mr.key()).limit(16), null, peer, 0), "send keys");
            busy[0] = true;
            posted++;
        } else {
            int slot;
            do {
                slot = poll();
                Thread.sleep(0, 200_000);
            } while (slot < RECV && !errorSeen && !shutdownSeen);
            if (slot < RECV) {
                throw new AssertionError("no keys from the server");
            }
            addr = rbufs[slot - RECV].getLong(0);
            key = rbufs[slot - RECV].getLong(8);
        }
        long written = 0;
        long cutMs = 0;
        boolean announced = false;
        while (!errorSeen && !shutdownSeen) {
            if (!server) {
                for (int i = 0; i < WINDOW; i++) {
                    if (!busy[i]) {
                        bufs[i].clear().putLong(0, written + 1);
                        int rc = ep.write(bufs[i], null, peer, addr + (long) i * SIZE, key, i);
                        if (rc == 0) {
                            busy[i] = true;
                            posted++;
                            written++;
                        } else if (rc != -Errno.EAGAIN) {
                            check(rc, "write");
                        }
                    }
                }
            }
            long before = ok;
            poll();
            long progress = server ? target.getLong(0) : ok;
            if (!announced && progress >= 100) {
                announced = true;
                mark("streaming", "after " + progress + " writes");
            }
            if (announced && cutMs == 0) {
                cutMs = cutTime();
            }
            if (cutMs != 0 && System.currentTimeMillis() - cutMs > limitMs()) {
                mark("unseen", "nothing within " + limitMs() / 1000 + " s of the cut");
                break;
            }
            if (ok == before) {
                Thread.sleep(0, 200_000);
            }
        }
        drain(30);
    }

    /** RDM, the link back: the client sends {@value #RESUME} messages on the same endpoint, the server receives them. */
    private void resume() throws Exception {
        awaitFile(scenario + ".up", 600);
        long start = System.currentTimeMillis();
        long deadline = start + 150_000;
        errorSeen = false;
        if (server) {
            for (int i = 0; i < WINDOW; i++) {
                if (!recvBusy[i]) {
                    postRecv(i);
                }
            }
            long target = ok + RESUME;
            while (ok < target && System.currentTimeMillis() < deadline) {
                int slot = poll();
                if (slot >= RECV) {
                    postRecv(slot - RECV);
                }
                Thread.sleep(0, 200_000);
            }
            if (ok < target) {
                throw new AssertionError("resume: " + (RESUME - target + ok) + " messages received of " + RESUME + " in 150 s");
            }
        } else {
            int sent = 0;
            int retries = 0;
            while (sent < RESUME) {
                if (System.currentTimeMillis() > deadline) {
                    throw new AssertionError("resume: " + sent + " of " + RESUME + " sends completed in 150 s");
                }
                check(ep.send(bufs[0].clear().limit(4096), null, peer, 0), "send");
                busy[0] = true;
                posted++;
                while (busy[0]) {
                    poll();
                }
                if (errorSeen) { // the connection is being made again: the failed send's error, then again
                    errorSeen = false;
                    retries++;
                    Thread.sleep(250);
                } else {
                    sent++;
                }
            }
            mark("resent", retries + " sends failed before the first went through");
        }
        mark("resumed", RESUME + " messages " + (server ? "received" : "sent") + " on the same endpoint, "
                + (System.currentTimeMillis() - start) + " ms after the link came back");
        drain(0);
    }

    /** MSG: one message each way, idle across the cut, then (link back) one message each way again. */
    private void idle() throws Exception {
        exchange();
        mark("idle", "one message each way");
        long cutMs = 0;
        while (cutMs == 0 || System.currentTimeMillis() - cutMs < limitMs()) {
            cutMs = cutTime();
            poll();
            if (errorSeen || shutdownSeen) {
                break;
            }
            Thread.sleep(1);
        }
        if (!errorSeen && !shutdownSeen) {
            mark("unseen", "idle for " + limitMs() / 1000 + " s after the cut, nothing reported");
            awaitFile(scenario + ".up", 600);
            try {
                exchange();
                mark("survived", "one message each way after the link came back");
            } catch (AssertionError broken) {
                mark("broken", "after the link came back: " + broken.getMessage());
            }
        }
        drain(30);
    }

    /** One message each way: the client first (each side has its receives posted since it connected). */
    private void exchange() throws Exception {
        if (server) {
            awaitOk(1);
        }
        check(ep.send(bufs[0].clear().limit(64), null, peer, 0), "send");
        busy[0] = true;
        posted++;
        awaitOk(server ? 1 : 2);
    }

    /** Waits for {@code n} successful completions (reposting the receives), failing on the connection's end. */
    private void awaitOk(int n) throws Exception {
        long target = ok + n;
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (ok < target && !errorSeen && !shutdownSeen && System.nanoTime() < deadline) {
            int slot = poll();
            if (slot >= RECV) {
                postRecv(slot - RECV);
            }
            Thread.sleep(0, 200_000);
        }
        if (ok < target) {
            throw new AssertionError("exchange: " + (errorSeen || shutdownSeen ? "the connection failed" : "nothing in 120 s"));
        }
    }

    /** MSG, the link down: the client's connect and the time until its EQ says it failed. */
    private void connectIntoDownLink(Fabric fabric, Domain domain, Info info) throws Exception {
        if (server) {
            PassiveEndpoint pep = fabric.passiveEndpoint(info, "pep");
            pep.bind(eq, 0);
            pep.listen();
            mark("listening", "");
            awaitFile(scenario + ".up", 600);
            pep.close();
            return;
        }
        long cutMs = awaitFile(scenario + ".cut", 600);
        open(domain, info);
        long start = System.currentTimeMillis();
        ep.connect(info.destAddr(), null);
        long limit = start + 300_000;
        while (System.currentTimeMillis() < limit) {
            int rc = eq.read(event, 0);
            if (rc == 1) {
                throw new AssertionError("connected across a down link (event " + event.event() + ")");
            }
            if (rc == -Errno.EAVAIL) {
                EqErrEntry x = new EqErrEntry();
                eq.readErr(x, 0);
                mark("connect-failed", (System.currentTimeMillis() - start) + " ms after connect ("
                        + (start - cutMs) + " ms after the cut): " + Errno.strerror(x.err()) + " provErrno " + x.provErrno());
                return;
            }
            Thread.sleep(1);
        }
        throw new AssertionError("connect across a down link: no event within 300 s");
    }

    /**
     * Reads one completion and one event if there are: a success frees its slot and returns it;
     * an error entry or {@code FI_SHUTDOWN} is marked (the first of each) and counted; -1 when
     * nothing freed a slot.
     */
    private int poll() throws Exception {
        if (eq != null && ep != null) {
            int rc = eq.read(event, 0);
            if (rc == 1 && event.event() == Fi.FI_SHUTDOWN) {
                if (!shutdownSeen) {
                    mark("shutdown", "FI_SHUTDOWN");
                }
                shutdownSeen = true;
            } else if (rc == -Errno.EAVAIL) {
                EqErrEntry x = new EqErrEntry();
                eq.readErr(x, 0);
                mark("eq-error", Errno.strerror(x.err()));
            }
        }
        int n = cq.read(done, 1);
        if (n == 1) {
            ok++;
            return release(done[0].context());
        }
        if (n == -Errno.EAVAIL) {
            cq.readErr(err, 0);
            failed++;
            if (cancelling && err.err() == Errno.ECANCELED) {
                release(err.context());
                return -1;
            }
            if (!errorSeen) {
                mark("error", Errno.strerror(err.err()) + " provErrno " + err.provErrno()
                        + ((err.flags() & Fi.FI_RECV) != 0 ? " (a receive)" : " (a send)"));
            }
            errorSeen = true;
            release(err.context());
        }
        return -1;
    }

    private int release(Object context) {
        if (context instanceof Integer i && i >= RECV) {
            recvBusy[i - RECV] = false;
            return i;
        }
        if (context instanceof Integer i && i >= 0) {
            busy[i] = false;
            return i;
        }
        return -1;
    }

    /**
     * Waits up to {@code seconds} for every operation posted to complete; then cancels the
     * receives still pending (they wait for a peer that may never send again) and prints the
     * count: {@code pending} must end at 0.
     */
    private void drain(int seconds) throws Exception {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (ok + failed < posted && System.nanoTime() < deadline) {
            poll();
            Thread.sleep(1);
        }
        cancelling = true;
        for (int i = 0; i < WINDOW; i++) {
            if (recvBusy[i]) {
                ep.cancel(RECV + i);
            }
        }
        deadline = System.nanoTime() + 10_000_000_000L;
        while (ok + failed < posted && System.nanoTime() < deadline) {
            poll();
            Thread.sleep(1);
        }
        cancelling = false;
        mark("drained", "posted=" + posted + " ok=" + ok + " err=" + failed + " pending=" + (posted - ok - failed));
    }

    private void drainQuietly() throws Exception {
        while (cq.read(done, 1) == 1 || cq.read(done, 1) == -Errno.EAVAIL && cq.readErr(err, 0) >= 0) {
            Thread.sleep(1);
        }
        ok = 0;
        failed = 0;
        errorSeen = false;
        shutdownSeen = false;
        java.util.Arrays.fill(busy, false);
        java.util.Arrays.fill(recvBusy, false);
    }

    private void postRecv(int slot) {
        check(ep.recv(rbufs[slot].clear(), null, Fi.FI_ADDR_UNSPEC, RECV + slot), "recv");
        recvBusy[slot] = true;
        posted++;
    }

    /** The cut's epoch milliseconds from {@code DIR/SCENARIO.cut}, 0 while the script has not cut. */
    private long cutTime() throws Exception {
        Path f = dir.resolve(scenario + ".cut");
        if (!Files.exists(f)) {
            return 0;
        }
        String s = Files.readString(f).trim();
        return s.isEmpty() ? 0 : Long.parseLong(s);
    }

    private long awaitFile(String name, int seconds) throws Exception {
        Path f = dir.resolve(name);
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (Files.exists(f)) {
                String s = Files.readString(f).trim();
                if (!s.isEmpty()) {
                    return Long.parseLong(s);
                }
            }
            poll();
            Thread.sleep(10);
        }
        throw new AssertionError("no " + name + " from the script within " + seconds + " s");
    }

    private static long limitMs() {
        return Long.getLong("cutcheck.limit", 60) * 1000;
    }

    private EqEntry awaitEvent(int wanted, int seconds) throws Exception {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            int rc = eq.read(event, 0);
            if (rc == 1 && event.event() == wanted) {
                return event;
            }
            if (rc == 1) {
                throw new AssertionError("unexpected event " + event.event());
            }
            if (rc == -Errno.EAVAIL) {
                EqErrEntry x = new EqErrEntry();
                eq.readErr(x, 0);
                throw new AssertionError("EQ error " + Errno.strerror(x.err()));
            }
            Thread.sleep(1);
        }
        throw new AssertionError("no event " + wanted + " within " + seconds + " s");
    }

    private void mark(String what, String detail) {
        say("@ " + scenario + " " + what + " " + System.currentTimeMillis() + " " + (server ? "server" : "client") + " " + detail);
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new AssertionError(what + " refused: " + Errno.strerror(-rc));
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
