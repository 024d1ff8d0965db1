package io.jofi.provider.shm;

import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.AddressVector;
import io.jofi.CqFormat;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.Progress;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A child JVM for the cross-process tests: one shm endpoint driven by line commands on stdin,
 * answering on stdout. While it waits for a command it does nothing else — in MANUAL
 * progress its endpoint is then not progressed at all (the one-sided RMA tests rely on it).
 *
 * <pre>
 * args: AUTO|MANUAL [chosen name]
 * out:  NAME fi_shm://...           once enabled
 * in:   peer &lt;address text&gt;       insert the parent's address      -> OK
 *       echo &lt;n&gt;                 receive n messages (msg or tagged) and send each back -> DONE
 *       send &lt;n&gt; &lt;len&gt;          send n messages of len bytes (byte i = i) to the peer -> DONE
 *       alloc &lt;size&gt; &lt;key&gt;     shareable buffer registered for remote read/write -> OK
 *       fill &lt;off&gt; &lt;len&gt; &lt;seed&gt;  write a pattern into it (no progress) -> OK
 *       check &lt;off&gt; &lt;len&gt; &lt;seed&gt; verify a pattern in it (no progress) -> OK | BAD &lt;i&gt;
 *       get &lt;off&gt;               the long at off (native order) -> VALUE &lt;v&gt;
 *       atomics &lt;key&gt; &lt;n&gt;        n fetching FI_SUM +1 at the parent's region, offset 0 -> DONE
 *       flood &lt;len&gt;             send until a send fails, then read every posted send's completion
 *                                 -> FAILED &lt;errno&gt; | LOST &lt;n&gt; of &lt;posted&gt; | NOFAIL | THREW ...
 *       engine                  RUNNING when the domain's progress (and its AUTO thread) lives
 *       quit                    close everything and exit 0
 * </pre>
 */
public final class ShmPeerMain {
    private ShmPeerMain() {
    }

    public static void main(String[] args) throws Exception {
        Progress progress = Progress.valueOf(args[0]);
        ShmProvider provider = new ShmProvider();
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_ATOMIC | Fi.FI_SOURCE);
        hints.epAttr().type(EpType.RDM);
        hints.domainAttr().dataProgress(progress);
        // args[1], when given: a chosen name (its endpoint is fi_shm://<name>, a .name link)
        Info info = args.length > 1 ? provider.getInfo(ShmNames.SCHEME + args[1], null, Fi.FI_SOURCE, hints).get(0)
                : provider.getInfo(null, null, 0, hints).get(0);
        Fabric fabric = provider.fabric(info.fabricAttr(), null);
        Domain domain = fabric.domain(info, null);
        CompletionQueue txCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), null);
        CompletionQueue rxCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), null);
        AddressVector av = domain.openAv(new AvAttr(), null);
        Endpoint ep = domain.endpoint(info, null);
        ep.bind(txCq, Fi.FI_TRANSMIT);
        ep.bind(rxCq, Fi.FI_RECV);
        ep.bind(av, 0);
        ep.enable();
        byte[] name = ep.getName();
        System.out.println("NAME " + new String(name, 0, name.length - 1, StandardCharsets.US_ASCII));
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        long peer = Fi.FI_ADDR_NOTAVAIL;
        ByteBuffer shared = null;
        MemoryRegion sharedMr = null;
        CqEntry[] e = {new CqEntry()};
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split(" ");
            switch (w[0]) {
                case "peer" -> {
                    long[] fi = {0};
                    byte[] a = (w[1]).getBytes(StandardCharsets.US_ASCII);
                    byte[] z = java.util.Arrays.copyOf(a, a.length + 1);
                    check(av.insert(new byte[][] {z}, fi, 0, null) == 1 ? 0 : -1, "insert");
                    peer = fi[0];
                    say("OK");
                }
                case "echo" -> {
                    int n = Integer.parseInt(w[1]);
                    ByteBuffer buf = ByteBuffer.allocateDirect(4 << 20);
                    for (int i = 0; i < n; i++) {
                        buf.clear();
                        check(ep.recv(buf, null, Fi.FI_ADDR_UNSPEC, "r"), "recv");
                        // a tagged message is received by the same buffer through a wildcard trecv
                        ByteBuffer tbuf = ByteBuffer.allocateDirect(4 << 20);
                        check(ep.trecv(tbuf, null, Fi.FI_ADDR_UNSPEC, 0, -1L, "t"), "trecv");
                        CqEntry c = next(rxCq, e[0]);
                        boolean tagged = "t".equals(c.context());
                        ep.cancel(tagged ? "r" : "t");
                        drainErrors(rxCq);
                        ByteBuffer got = tagged ? tbuf : buf;
                        got.limit((int) c.len()).position(0);
                        int rc;
                        do {
                            rc = tagged ? ep.tsend(got, null, peer, c.tag(), "s") : ep.send(got, null, peer, "s");
                        } while (rc == -Errno.EAGAIN && rxCq.read(new CqEntry[0], 0) <= 0);
                        check(rc, "send back");
                        next(txCq, e[0]);
                    }
                    say("DONE");
                }
                case "send" -> {
                    int n = Integer.parseInt(w[1]);
                    int len = Integer.parseInt(w[2]);
                    ByteBuffer out = ByteBuffer.allocateDirect(len);
                    for (int i = 0; i < len; i++) {
                        out.put(i, (byte) i);
                    }
                    for (int i = 0; i < n; i++) {
                        int rc;
                        while ((rc = ep.send(out.duplicate(), null, peer, "s")) == -Errno.EAGAIN) {
                            txCq.read(new CqEntry[0], 0);
                        }
                        check(rc, "send");
                        next(txCq, e[0]);
                    }
                    say("DONE");
                }
                case "flood" -> flood(ep, txCq, peer, Integer.parseInt(w[1]));
                case "engine" -> {
                    io.jofi.spi.util.ProgressEngine engine = ((ShmDomain) domain).engine();
                    boolean alive = engine.isRunning() && (progress != Progress.AUTO || engine.thread().isAlive());
                    say(alive ? "RUNNING" : "STOPPED " + engine.failure());
                }
                case "alloc" -> {
                    shared = domain.allocateBuffer(Long.parseLong(w[1])).order(ByteOrder.nativeOrder());
                    MemoryRegion mr = sharedMr = domain.register(shared, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0,
                            Long.parseLong(w[2]), 0, null);
                    say(mr.key() == Long.parseLong(w[2]) ? "OK" : "BAD key");
                }
                case "fill" -> {
                    int off = Integer.parseInt(w[1]);
                    int len = Integer.parseInt(w[2]);
                    int seed = Integer.parseInt(w[3]);
                    for (int i = 0; i < len; i++) {
                        shared.put(off + i, (byte) (seed + i));
                    }
                    say("OK");
                }
                case "check" -> {
                    int off = Integer.parseInt(w[1]);
                    int len = Integer.parseInt(w[2]);
                    int seed = Integer.parseInt(w[3]);
                    String r = "OK";
                    for (int i = 0; i < len; i++) {
                        if (shared.get(off + i) != (byte) (seed + i)) {
                            r = "BAD " + i;
                            break;
                        }
                    }
                    say(r);
                }
                case "get" -> say("VALUE " + shared.getLong(Integer.parseInt(w[1])));
                case "atomics" -> {
                    long key = Long.parseLong(w[1]);
                    int n = Integer.parseInt(w[2]);
                    ByteBuffer result = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
                    for (int i = 0; i < n; i++) {
                        int rc;
                        while ((rc = ep.fetchAtomic(1, result, null, peer, 0, key, Fi.FI_SUM, "a")) == -Errno.EAGAIN) {
                            txCq.read(new CqEntry[0], 0);
                        }
                        check(rc, "fetchAtomic");
                        next(txCq, e[0]);
                    }
                    say("DONE");
                }
                case "quit" -> {
                    if (sharedMr != null) {
                        sharedMr.close();
                    }
                    ep.close();
                    av.close();
                    txCq.close();
                    rxCq.close();
                    domain.close();
                    fabric.close();
                    say("BYE");
                    return;
                }
                default -> say("BAD command " + line);
            }
        }
    }

    /**
     * Sends {@code len}-byte messages to the peer until one fails (docs/SHM-LAYOUT.md "Bad input, faults, security": its region
     * is truncated meanwhile): FAILED errno, NOFAIL after 20 s, or THREW when a call or the
     * code after it (an allocation that enters the VM raises a late fault) threw.
     */
    private static void flood(Endpoint ep, CompletionQueue txCq, long peer, int len) {
        try {
            ByteBuffer out = ByteBuffer.allocateDirect(len);
            CqEntry[] one = {new CqEntry()};
            CqErrEntry x = new CqErrEntry();
            long deadline = System.nanoTime() + 20_000_000_000L;
            int err = 0;
            long posted = 0;
            long completed = 0;
            while (err == 0 && System.nanoTime() < deadline) {
                int rc = ep.send(out.duplicate(), null, peer, "s");
                if (rc == 0) {
                    posted++;
                } else if (rc != -Errno.EAGAIN) {
                    err = -rc;
                }
                int r;
                while ((r = txCq.read(one, 1)) == 1) {
                    completed++;
                }
                if (r == -Errno.EAVAIL && txCq.readErr(x, 0) == 1) {
                    completed++;
                    err = x.err();
                }
            }
            // every send posted before the failure completes too (more error entries, as a rule):
            // read them all, so that the next command's completions are its own
            long drainBy = System.nanoTime() + 20_000_000_000L;
            while (err != 0 && completed < posted && System.nanoTime() < drainBy) {
                int r = txCq.read(one, 1);
                if (r == 1) {
                    completed++;
                } else if (r == -Errno.EAVAIL && txCq.readErr(x, 0) == 1) {
                    completed++;
                } else {
                    Thread.onSpinWait();
                }
            }
            byte[] enter = new byte[4 << 20]; // a fault still pending comes out here
            say(err == 0 ? "NOFAIL" : completed < posted ? "LOST " + (posted - completed) + " of " + posted
                    : "FAILED " + err + (enter.length > 0 ? "" : "?"));
        } catch (Throwable t) {
            say("THREW " + t);
        }
    }

    private static CqEntry next(CompletionQueue cq, CqEntry e) {
        CqEntry[] one = {e};
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < deadline) {
            int rc = cq.read(one, 1);
            if (rc == 1) {
                return e;
            }
            if (rc == -Errno.EAVAIL) {
                CqErrEntry err = new CqErrEntry();
                cq.readErr(err, 0);
                throw new IllegalStateException("error completion " + err);
            }
            Thread.onSpinWait();
        }
        throw new IllegalStateException("no completion within 20 s");
    }

    private static void drainErrors(CompletionQueue cq) {
        CqErrEntry err = new CqErrEntry();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline) {
            int rc = cq.read(new CqEntry[] {new CqEntry()}, 1);
            if (rc == -Errno.EAVAIL) {
                cq.readErr(err, 0); // the cancelled other receive
                return;
            }
            Thread.onSpinWait();
        }
    }

    private static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " returned " + rc);
        }
    }

    private static void say(String s) {
        System.out.println(s);
        System.out.flush();
    }
}
