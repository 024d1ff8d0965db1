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
import io.jofi.ResourceMgmt;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32;

/**
 * One side of checked streams and RMA rounds across a lossy link (the VM stage's netem veth
 * between two network namespaces, {@code provider-verbs/vm/guest/netns-lossy.sh}), with the JOFI
 * providers on the class path ({@link Fabrics#standalone()}), one run after another in one JVM
 * (a JVM's start is what costs most under emulation):
 * <pre>
 *   server|client ADDRESS PORT COUNT PROVIDER:msg|rdm...       run i on PORT + i
 * </pre>
 * The client sends COUNT messages of 16 B to 64 KiB, 8 in flight; each carries its sequence
 * number, its length and the CRC-32 of its pseudo-random payload, and the server checks that
 * every one arrives once, whole, and in the receive posted for it (matched in order). Then the server registers a 256 KiB target and
 * sends its key; the client writes a pattern into it (delivery complete), reads it back and
 * compares, and sends the pattern's CRC, which the server compares with its target's: the RMA
 * results verified on both sides. RDM: the client's first message is its address, which the
 * server inserts in its AV. The client tries its connect (its first RDM send) again for 120 s
 * while the server's run has not started listening. Where the provider manages no receive resources
 * ({@code resource_mgmt} {@code FI_RM_DISABLED}: verbs MSG on iWARP, where a message that finds no receive
 * posted ends the connection), the client sends only into receives the server has said it posted:
 * the server returns credits, a 4-byte message with its count of receives posted, every
 * {@value #CREDIT_EVERY} messages (the application's flow control that fi_domain(3) asks for). The client's
 * receives are a ring of {@value #CONTROL} small buffers for the server's credits, keys and verdict.
 * Prints {@code [T s] PASS PROVIDER:EP} per
 * run and exits 0, or {@code FAIL ...} and 1; a watchdog ({@code -Dlinkcheck.timeout}, 300 s)
 * prints every thread's stack and ends it with 3.
 */
public final class LinkCheckChild {
    private static final int SIZE = 64 * 1024;
    private static final int HEADER = 16;
    private static final int WINDOW = 8;
    private static final int TARGET = 256 * 1024;
    /** The server returns credits after this many messages (with {@code FI_RM_DISABLED}). */
    private static final int CREDIT_EVERY = WINDOW / 2;
    /** The client's receives: credits (at most WINDOW / CREDIT_EVERY + 1 unread), keys, verdict. */
    private static final int CONTROL = 6;
    /** A credit message's length; the keys (16 B) and the verdict (8 B) differ from it. */
    private static final int CREDIT_LENGTH = 4;
    /** The context of a credit's send (the server's), not counted by {@link #await}. */
    private static final int CREDIT_CONTEXT = -3;
    /** The contexts of the client's receives: CONTROL_CONTEXT + the buffer's slot. */
    private static final int CONTROL_CONTEXT = 100;

    private final CompletionQueue cq;
    private final CqEntry[] done = {new CqEntry()};
    private final CqErrEntry err = new CqErrEntry();
    private final java.util.ArrayDeque<int[]> received = new java.util.ArrayDeque<>();
    private Endpoint ep;
    private long peer = Fi.FI_ADDR_UNSPEC;
    private final long[] ordinal = new long[WINDOW];
    private long posted;
    /** The context of the last transmit completion {@link #poll} read (the stream's buffer slot). */
    private int lastTransmit;
    /** The client sends only into receives the server said it posted ({@code FI_RM_DISABLED}). */
    private final boolean flowControl;
    /** Client: the receives the server has said it posted (its initial WINDOW, then its credits). */
    private long serverPosted = WINDOW;
    /** Client: its receive buffers; server: its credits' send buffers. */
    private final ByteBuffer[] control = new ByteBuffer[CONTROL];
    /** Server: credits sent whose send has not completed yet (each holds a {@link #control} buffer). */
    private int creditsInFlight;
    private long creditsSent;

    private LinkCheckChild(CompletionQueue cq, boolean flowControl) {
        this.cq = cq;
        this.flowControl = flowControl;
        for (int i = 0; i < CONTROL; i++) {
            control[i] = ByteBuffer.allocateDirect(64);
        }
    }

    public static void main(String[] args) throws Exception {
        long limit = Long.getLong("linkcheck.timeout", 300);
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(limit * 1000);
                say("FAIL timed out after " + limit + " s; the threads:");
                Thread.getAllStackTraces().forEach((t, stack) -> {
                    say("  " + t.getName() + " " + t.getState());
                    for (StackTraceElement e : stack) {
                        say("    at " + e);
                    }
                });
                System.exit(3);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        boolean server = args[0].equals("server");
        int port = Integer.parseInt(args[2]);
        int count = Integer.parseInt(args[3]);
        for (int i = 4; i < args.length; i++) {
            String[] run = args[i].split(":");
            try {
                run(server, run[0], run[1].equals("rdm"), args[1], Integer.toString(port + i - 4), count);
            } catch (Exception | AssertionError e) {
                say("FAIL " + args[i] + ": " + e);
                e.printStackTrace(System.out);
                System.exit(1);
            }
        }
        System.exit(0);
    }

    private static final long START = System.nanoTime();

    /** A progress line with the seconds since the start: where the time goes under emulation. */
    private static void step(String what) {
        say(String.format("[%.1f s] %s", (System.nanoTime() - START) / 1e9, what));
    }

    private static void run(boolean server, String provider, boolean rdm, String node, String port, int count) throws Exception {
        String name = provider + ":" + (rdm ? "rdm" : "msg");
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_RMA | Fi.FI_READ | Fi.FI_WRITE | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE);
        hints.epAttr().type(rdm ? EpType.RDM : EpType.MSG);
        hints.domainAttr().mrMode(Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_ALLOCATED | Fi.FI_MR_PROV_KEY);
        hints.domainAttr().dataProgress(Progress.AUTO);
        hints.fabricAttr().provName(provider);
        step(name + " getInfo");
        List<Info> infos = Fabrics.standalone().getInfo(node, port, server ? Fi.FI_SOURCE : 0, hints);
        if (infos.isEmpty()) {
            throw new AssertionError("no " + name + " info for " + node);
        }
        Info info = infos.get(0);
        Fabric fabric = Fabrics.standalone().fabric(info.fabricAttr(), null);
        Domain domain = fabric.domain(info, null);
        boolean flowControl = info.domainAttr().resourceMgmt() == ResourceMgmt.DISABLED;
        if (flowControl) {
            step(name + ": resource_mgmt FI_RM_DISABLED, the server returns credits");
        }
        LinkCheckChild c = new LinkCheckChild(domain.openCq(new CqAttr().format(CqFormat.DATA).size(256), "cq"), flowControl);
        EventQueue eq = fabric.openEq(new EqAttr(), "eq");
        AddressVector av = rdm ? domain.openAv(new AvAttr(), "av") : null;
        ByteBuffer[] bufs = new ByteBuffer[WINDOW];
        for (int i = 0; i < WINDOW; i++) {
            bufs[i] = ByteBuffer.allocateDirect(SIZE);
        }
        if (server) {
            Info epInfo = info;
            if (!rdm) {
                PassiveEndpoint pep = fabric.passiveEndpoint(info, "pep");
                pep.bind(eq, 0);
                pep.listen();
                step(name + " listening");
                epInfo = awaitEvent(eq, Fi.FI_CONNREQ).info();
            }
            c.open(domain, epInfo, eq, av);
            for (int i = 0; i < WINDOW; i++) {
                c.post(bufs, i);
            }
            if (rdm) {
                step(name + " listening");
            } else {
                c.ep.accept(null);
                awaitEvent(eq, Fi.FI_CONNECTED);
            }
            c.serve(bufs, count, domain, av);
        } else {
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (true) {
                c.open(domain, info, eq, av);
                if (rdm) {
                    c.peer = av.insert(info.destAddr());
                    break; // the hello's send tries again (stream)
                }
                c.ep.connect(info.destAddr(), null);
                try {
                    awaitEvent(eq, Fi.FI_CONNECTED);
                    break;
                } catch (AssertionError refused) {
                    if (System.nanoTime() > deadline) {
                        throw refused;
                    }
                    c.ep.close(); // the server's next run listens not yet: again
                    Thread.sleep(250);
                }
            }
            step(name + " connected");
            c.stream(bufs, count);
        }
        step("PASS " + name);
    }

    private void open(Domain domain, Info info, EventQueue eq, AddressVector av) throws Exception {
        ep = domain.endpoint(info, "ep");
        if (av != null) {
            ep.bind(av, 0);
        } else {
            ep.bind(eq, 0);
        }
        ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        ep.enable();
    }

    /** Client: the hello (RDM: our address), COUNT checked messages, then the RMA round. */
    private void stream(ByteBuffer[] bufs, int count) throws Exception {
        for (int i = 0; i < CONTROL; i++) {
            postControl(i);
        }
        byte[] name = ep.getName();
        ByteBuffer hello = bufs[0].clear();
        hello.putInt(0, name.length).put(4, name);
        hello.limit(4 + name.length);
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (true) { // RDM: the server's endpoint may not listen yet, the send fails and goes again
            check(send(hello, 0), "send hello");
            try {
                await(1);
                break;
            } catch (AssertionError refused) {
                if (System.nanoTime() > deadline) {
                    throw refused;
                }
                Thread.sleep(250);
            }
        }
        long start = System.nanoTime();
        // a buffer is written again only once its own send completed: completions come out of
        // order (RDM: a rendezvous completes once the peer has read it, the eager sends behind it
        // at once), and the peer of a rendezvous reads the buffer as it is then
        boolean[] busy = new boolean[WINDOW];
        int inFlight = 0;
        int next = 0;
        long bytes = 0;
        while (next < count || inFlight > 0) {
            int free = -1;
            // message next is the server's receive next + 1 (the hello took the first)
            boolean credit = !flowControl || next + 1 < serverPosted;
            for (int i = 0; credit && next < count && i < WINDOW && free < 0; i++) {
                free = busy[i] ? -1 : i;
            }
            if (free >= 0) {
                ByteBuffer b = bufs[free];
                int len = fill(b, next);
                int rc = send(b, free);
                if (rc != -Errno.EAGAIN) {
                    check(rc, "send " + next);
                    busy[free] = true;
                    bytes += len;
                    next++;
                    inFlight++;
                }
            }
            if (poll(free < 0) == 1) {
                busy[lastTransmit] = false;
                inFlight--;
            }
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        say("sent " + count + " messages, " + bytes + " bytes in " + ms + " ms");
        ByteBuffer in = controlReceived(awaitReceive()); // the server's keys
        long addr = in.getLong(0);
        long key = in.getLong(8);
        ByteBuffer pattern = ByteBuffer.allocateDirect(TARGET);
        for (int i = 0; i < TARGET; i++) {
            pattern.put(i, (byte) (i * 31 + (i >>> 9)));
        }
        for (int off = 0; off < TARGET; off += SIZE) {
            check(ep.writeMsg(new io.jofi.RmaMsg().buffer(pattern.duplicate().position(off).limit(off + SIZE), null)
                    .addr(peer).context(off).rma(addr + off, SIZE, key), Fi.FI_COMPLETION | Fi.FI_DELIVERY_COMPLETE), "write");
        }
        await(TARGET / SIZE);
        ByteBuffer back = ByteBuffer.allocateDirect(TARGET);
        for (int off = 0; off < TARGET; off += SIZE) {
            check(ep.read(back.duplicate().position(off).limit(off + SIZE), null, peer, addr + off, key, off), "read");
        }
        await(TARGET / SIZE);
        if (!back.equals(pattern.clear())) {
            throw new AssertionError("RMA: the region read back differs from the one written");
        }
        CRC32 crc = new CRC32();
        crc.update(pattern.duplicate());
        ByteBuffer verdict = bufs[0].clear();
        verdict.putLong(0, crc.getValue()).limit(8);
        check(send(verdict, 0), "send crc");
        await(1);
        in = controlReceived(awaitReceive());
        if (in.getLong(0) != 1) {
            throw new AssertionError("the server found its target different from what was written");
        }
        say("client: " + count + " messages sent, 256 KiB written, read back and verified on both sides");
    }

    /** Server: the hello, COUNT messages checked in order, the keys, the RMA verdict. */
    private void serve(ByteBuffer[] bufs, int count, Domain domain, AddressVector av) throws Exception {
        int slot = awaitReceive()[0];
        if (ordinal[slot] != 0) {
            throw new AssertionError("the hello did not land in the first receive posted");
        }
        if (av != null) {
            ByteBuffer h = bufs[slot];
            byte[] name = new byte[h.getInt(0)];
            h.get(4, name);
            peer = av.insert(name);
        }
        post(bufs, slot);
        CRC32 crc = new CRC32();
        java.util.BitSet seen = new java.util.BitSet(count);
        for (int n = 0; n < count; n++) {
            // Completions may come out of order (RDM: a rendezvous completes after the eager
            // messages behind it); the matching may not: message k lands in receive k + 1.
            int[] r = awaitReceive();
            slot = r[0];
            ByteBuffer b = bufs[slot];
            int len = r[1];
            long seq = b.getLong(0);
            if (seq != ordinal[slot] - 1) {
                throw new AssertionError("message " + seq + " landed in receive " + ordinal[slot] + " (matched out of order)");
            }
            if (seq < 0 || seq >= count || seen.get((int) seq)) {
                throw new AssertionError("message " + seq + " arrived twice or was never sent");
            }
            seen.set((int) seq);
            if (len != b.getInt(8) || len != length((int) seq)) {
                throw new AssertionError("message " + seq + ": " + len + " bytes, " + length((int) seq) + " sent");
            }
            crc.reset();
            crc.update(b.duplicate().position(HEADER).limit(len));
            if ((int) crc.getValue() != b.getInt(12)) {
                throw new AssertionError("message " + seq + ": its payload's CRC-32 differs");
            }
            post(bufs, slot);
            if (flowControl && (n + 1) % CREDIT_EVERY == 0) {
                sendCredit();
            }
        }
        say("received " + count + " messages, each once, matched in order, CRC-32 intact");
        ByteBuffer target = ByteBuffer.allocateDirect(TARGET);
        MemoryRegion mr = domain.register(target, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 0x6a6f, 0, "target");
        ByteBuffer keys = ByteBuffer.allocateDirect(16);
        keys.putLong(0, mr.address()).putLong(8, mr.key());
        check(send(keys, -2), "send keys");
        await(1);
        slot = awaitReceive()[0];
        crc.reset();
        crc.update(target.duplicate().clear());
        boolean same = bufs[slot].getLong(0) == crc.getValue();
        ByteBuffer verdict = ByteBuffer.allocateDirect(8);
        verdict.putLong(0, same ? 1 : 0);
        check(send(verdict, -2), "send verdict");
        await(1);
        if (!same) {
            throw new AssertionError("RMA: the target's CRC-32 differs from the client's pattern");
        }
        say("server: " + count + " messages checked; 256 KiB written into the target by the peer, verified");
        Thread.sleep(1000); // the verdict reaches the client before this side closes
    }

    /** Posts the receive of buffer {@code slot}, remembering its place in the posting order. */
    private void post(ByteBuffer[] bufs, int slot) {
        ordinal[slot] = posted++;
        check(ep.recv(bufs[slot].clear(), null, Fi.FI_ADDR_UNSPEC, slot), "recv");
    }

    /** Server: tells the client how many receives it has posted so far (a 4-byte message). */
    private void sendCredit() throws InterruptedException {
        while (creditsInFlight == CONTROL) {
            poll(true); // a credit's buffer is written again only once its send completed (in order)
        }
        ByteBuffer b = control[(int) (creditsSent++ % CONTROL)].clear();
        b.putInt(0, (int) posted).limit(CREDIT_LENGTH);
        int rc;
        while ((rc = send(b, CREDIT_CONTEXT)) == -Errno.EAGAIN) {
            poll(true);
        }
        check(rc, "send credit");
        creditsInFlight++;
    }

    /** Client: posts the receive of control buffer {@code slot}. */
    private void postControl(int slot) {
        check(ep.recv(control[slot].clear(), null, Fi.FI_ADDR_UNSPEC, CONTROL_CONTEXT + slot), "recv");
    }

    /** Client: the control buffer a receive (not a credit) landed in, reposted once read by the caller. */
    private ByteBuffer controlReceived(int[] receive) {
        int slot = receive[0] - CONTROL_CONTEXT;
        ByteBuffer copy = ByteBuffer.allocateDirect(receive[1]);
        copy.put(0, control[slot], 0, receive[1]);
        postControl(slot);
        return copy;
    }

    private int send(ByteBuffer b, int context) {
        return ep.send(b, null, peer, context);
    }

    /** The message {@code seq}'s length: 16 B to 64 KiB, a small one every fourth. */
    private static int length(int seq) {
        long mix = (seq * 2654435761L) & 0x7fffffffL;
        return seq % 4 == 0 ? HEADER + (int) (mix % 240) : HEADER + (int) (mix % (SIZE - HEADER + 1));
    }

    private static int fill(ByteBuffer b, int seq) {
        int len = length(seq);
        b.clear();
        long x = seq * 0x9e3779b97f4a7c15L + 1;
        for (int i = HEADER; i < len; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b.put(i, (byte) x);
        }
        CRC32 crc = new CRC32();
        crc.update(b.duplicate().position(HEADER).limit(len));
        b.putLong(0, seq).putInt(8, len).putInt(12, (int) crc.getValue());
        b.limit(len);
        return len;
    }

    /**
     * Reads one completion if there is one (waiting a little when {@code wait}): a receive's is
     * queued for {@link #awaitReceive}, a transmit's counted (returns 1); fails on an error entry.
     */
    private int poll(boolean wait) throws InterruptedException {
        int n = cq.read(done, 1);
        if (n == 1) {
            int context = done[0].context() instanceof Integer i ? i : -1;
            if ((done[0].flags() & Fi.FI_RECV) != 0) {
                if (context >= CONTROL_CONTEXT && done[0].len() == CREDIT_LENGTH) {
                    serverPosted = Math.max(serverPosted, control[context - CONTROL_CONTEXT].getInt(0));
                    postControl(context - CONTROL_CONTEXT);
                    return 0;
                }
                received.add(new int[] {context, (int) done[0].len()});
                return 0;
            }
            if (context == CREDIT_CONTEXT) {
                creditsInFlight--;
                return 0;
            }
            lastTransmit = context;
            return 1;
        }
        if (n == -Errno.EAVAIL) {
            cq.readErr(err, 0);
            throw new AssertionError("error completion " + Errno.strerror(err.err()) + " (context " + err.context() + ")");
        }
        if (wait) {
            Thread.sleep(0, 100_000);
        }
        return 0;
    }

    /** Waits for {@code n} transmit completions. */
    private void await(int n) throws InterruptedException {
        for (int got = 0; got < n; ) {
            got += poll(true);
        }
    }

    /** Waits for a receive's completion: its context (the buffer's slot) and length. */
    private int[] awaitReceive() throws InterruptedException {
        while (received.isEmpty()) {
            poll(true);
        }
        return received.poll();
    }

    private static EqEntry awaitEvent(EventQueue eq, int wanted) throws Exception {
        EqEntry e = new EqEntry();
        long deadline = System.nanoTime() + 150_000_000_000L; // the peer's JVM may take long to start under emulation
        while (System.nanoTime() < deadline) {
            int rc = eq.read(e, 0);
            if (rc == 1 && e.event() == wanted) {
                return e;
            }
            if (rc == 1) {
                throw new AssertionError("unexpected event " + e.event());
            }
            if (rc == -Errno.EAVAIL) {
                EqErrEntry x = new EqErrEntry();
                eq.readErr(x, 0);
                throw new AssertionError("EQ error " + Errno.strerror(x.err()));
            }
            Thread.sleep(1);
        }
        throw new AssertionError("no event " + wanted + " within 150 s");
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
