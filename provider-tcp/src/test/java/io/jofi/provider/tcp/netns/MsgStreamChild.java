package io.jofi.provider.tcp.netns;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
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
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * A child JVM in a namespace: one JOFI MSG connection (AUTO progress) carrying a bw-like stream
 * of 64 KiB messages, for the cut tests ({@link NetnsCutTest}). Every line it prints that the
 * test reads carries the wall-clock time ({@code System.currentTimeMillis}, the host's clock,
 * shared with the test JVM):
 * <pre>
 *   listening | connected | connreq            set-up
 *   connecting T                               the client's connect called
 *   received N / sent N                        once a second
 *   paused T / resumed T                       the slow consumer's pause
 *   error T ERR PROV_ERRNO TEXT                the first error completion or EQ error event
 *   shutdown T PAYLOAD                         each FI_SHUTDOWN
 *   final posted=P ok=O errors=E shutdowns=S   at the end: P == O + E, nothing lost
 * </pre>
 * Arguments: {@code server|client ADDRESS PORT} then {@code key=value}: {@code mode} stream (the
 * default: until the connection ends or {@code messages} went), idle (receives posted, nothing
 * sent), noaccept (server: never accepts); {@code messages}, {@code gapMicros} (sender's pace),
 * {@code pauseAfter} and {@code pauseMs} (receiver: stops posting receives for that long);
 * for {@code provider-tcp/netns/soak.sh}: {@code seconds} (the sender stops after that long),
 * {@code exitAtEnd} (the sender exits after its final line instead of waiting to be ended) and
 * {@code statsAfter} (seconds after connecting: {@link ProcessStats} "warm", and "end" at the final line).
 * Received messages are checked: each carries its sequence number at both ends, in order.
 */
public final class MsgStreamChild {
    static final int SIZE = 64 * 1024;
    private static final int WINDOW = 16;

    private final Map<String, String> opts;
    private final EventQueue eq;
    private final CompletionQueue cq;
    private Endpoint ep;
    private long posted;
    private long ok;
    private long errors;
    private int shutdowns;
    private long ended;
    private long lastReport = System.currentTimeMillis();
    private long statsAt;
    private final CqEntry[] entries = {new CqEntry(), new CqEntry(), new CqEntry(), new CqEntry()};
    private final CqErrEntry err = new CqErrEntry();

    private MsgStreamChild(Map<String, String> opts, EventQueue eq, CompletionQueue cq) {
        this.opts = opts;
        this.eq = eq;
        this.cq = cq;
    }

    public static void main(String[] args) throws Exception {
        boolean server = args[0].equals("server");
        Map<String, String> opts = new HashMap<>();
        for (int i = 3; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            opts.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        TcpProvider provider = new TcpProvider();
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.MSG);
        hints.domainAttr().dataProgress(Progress.AUTO);
        Info info = provider.getInfo(args[1], args[2], server ? Fi.FI_SOURCE : 0, hints).get(0);
        Fabric fabric = provider.fabric(info.fabricAttr(), null);
        Domain domain = fabric.domain(info, null);
        EventQueue eq = fabric.openEq(new EqAttr(), "eq");
        CompletionQueue cq = domain.openCq(new CqAttr().format(io.jofi.CqFormat.DATA), "cq");
        MsgStreamChild child = new MsgStreamChild(opts, eq, cq);
        String mode = opts.getOrDefault("mode", "stream");
        if (server) {
            PassiveEndpoint pep = fabric.passiveEndpoint(info, "pep");
            pep.bind(eq, 0);
            pep.listen();
            say("listening");
            EqEntry req = child.awaitEvent(Fi.FI_CONNREQ);
            say("connreq");
            if (mode.equals("noaccept")) {
                Thread.sleep(Long.MAX_VALUE);
            }
            child.open(domain, req.info());
            child.ep.accept(null);
        } else {
            child.open(domain, info);
            child.ep.connect(info.destAddr(), null);
            say("connecting " + now());
        }
        if (child.awaitEvent(Fi.FI_CONNECTED) == null) {
            return;
        }
        say("connected");
        long statsAfter = Long.parseLong(opts.getOrDefault("statsAfter", "0"));
        child.statsAt = statsAfter > 0 ? now() + statsAfter * 1000 : 0;
        if (server || mode.equals("idle")) {
            child.receive();
        } else {
            child.send();
        }
    }

    private void open(Domain domain, Info info) throws Exception {
        ep = domain.endpoint(info, "stream");
        ep.bind(eq, 0);
        ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        ep.enable();
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static long now() {
        return System.currentTimeMillis();
    }

    /** The event wanted; {@code null} (after printing the error and the final line) on an EQ error event. */
    private EqEntry awaitEvent(int wanted) throws Exception {
        EqEntry e = new EqEntry();
        while (true) {
            int rc = eq.read(e, 0);
            if (rc == 1 && e.event() == wanted) {
                return e;
            }
            if (rc == 1) {
                say("unexpected event " + e.event());
                System.exit(1);
            }
            if (rc == -Errno.EAVAIL) {
                EqErrEntry x = new EqErrEntry();
                eq.readErr(x, 0);
                String text = x.errDataSize() > 0 ? new String(x.errData(), 0, x.errDataSize(), StandardCharsets.UTF_8) : "";
                say("error " + now() + " " + x.err() + " " + x.provErrno() + " " + text);
                say("final posted=0 ok=0 errors=1 shutdowns=0");
                System.exit(0);
                return null;
            }
            Thread.sleep(1);
        }
    }

    /** Receives with {@link #WINDOW} receives posted, checking each message, until the connection ends (or {@code messages}). */
    private void receive() throws Exception {
        long limit = Long.parseLong(opts.getOrDefault("messages", Long.toString(Long.MAX_VALUE)));
        long pauseAfter = Long.parseLong(opts.getOrDefault("pauseAfter", "-1"));
        long pauseMs = Long.parseLong(opts.getOrDefault("pauseMs", "0"));
        ByteBuffer[] bufs = new ByteBuffer[WINDOW];
        for (int i = 0; i < WINDOW; i++) {
            bufs[i] = ByteBuffer.allocateDirect(SIZE);
            post(ep.recv(bufs[i], null, Fi.FI_ADDR_UNSPEC, i));
        }
        long expected = 0;
        long resumeAt = -1;
        java.util.ArrayDeque<Integer> held = new java.util.ArrayDeque<>();
        while (ended == 0 || posted != ok + errors) {
            int n = poll();
            for (int k = 0; k < n; k++) {
                int i = (Integer) entries[k].context();
                ByteBuffer b = bufs[i];
                long first = b.getLong(0);
                long last = b.getLong(SIZE - 8);
                if (entries[k].len() != SIZE || first != expected || last != expected) {
                    say("FAIL message " + expected + ": len " + entries[k].len() + ", sequence " + first + "/" + last);
                    System.exit(1);
                }
                expected++;
                if (expected == pauseAfter) {
                    resumeAt = now() + pauseMs;
                    say("paused " + now());
                }
                if (resumeAt > 0 || expected >= limit) {
                    held.add(i);
                } else if (ended == 0) {
                    post(ep.recv(b, null, Fi.FI_ADDR_UNSPEC, i));
                }
            }
            if (resumeAt > 0 && now() >= resumeAt) {
                resumeAt = -1;
                say("resumed " + now());
                while (!held.isEmpty() && ended == 0) {
                    int i = held.poll();
                    post(ep.recv(bufs[i], null, Fi.FI_ADDR_UNSPEC, i));
                }
            }
            if (expected >= limit && ended == 0) {
                break;
            }
            report("received", expected);
        }
        finish();
    }

    /** Sends 64 KiB messages, {@link #WINDOW} at most in flight, one per {@code gapMicros}, until the end. */
    private void send() throws Exception {
        long limit = Long.parseLong(opts.getOrDefault("messages", Long.toString(Long.MAX_VALUE)));
        long gap = Long.parseLong(opts.getOrDefault("gapMicros", "500")) * 1000;
        long stopAt = opts.containsKey("seconds") ? now() + Long.parseLong(opts.get("seconds")) * 1000 : Long.MAX_VALUE;
        ByteBuffer[] bufs = new ByteBuffer[WINDOW];
        boolean[] busy = new boolean[WINDOW];
        for (int i = 0; i < WINDOW; i++) {
            bufs[i] = ByteBuffer.allocateDirect(SIZE);
        }
        long seq = 0;
        long next = System.nanoTime();
        while (ended == 0 || posted != ok + errors) {
            if (seq < limit && now() >= stopAt) {
                limit = seq;
            }
            if (ended == 0 && seq < limit && System.nanoTime() >= next) {
                for (int i = 0; i < WINDOW; i++) {
                    if (!busy[i]) {
                        bufs[i].clear();
                        bufs[i].putLong(0, seq).putLong(SIZE - 8, seq);
                        int rc = ep.send(bufs[i], null, Fi.FI_ADDR_UNSPEC, i);
                        if (rc == 0) {
                            busy[i] = true;
                            posted++;
                            seq++;
                            next += gap;
                        } else if (rc != -Errno.EAGAIN) {
                            say("post refused " + rc);
                            ended = now();
                        }
                        break;
                    }
                }
            }
            int n = poll();
            for (int k = 0; k < n; k++) {
                busy[(Integer) entries[k].context()] = false;
            }
            report("sent", ok);
            if (seq >= limit && posted == ok + errors) {
                if (opts.containsKey("statsAfter")) {
                    say(ProcessStats.line("end"));
                }
                say("final posted=" + posted + " ok=" + ok + " errors=" + errors + " shutdowns=" + shutdowns);
                if (Boolean.parseBoolean(opts.getOrDefault("exitAtEnd", "false"))) {
                    Thread.sleep(1000); // the last messages are in the peer's socket; then close
                    System.exit(0);
                }
                Thread.sleep(Long.MAX_VALUE); // the test ends it once the receiver has everything
            }
            if (n == 0) {
                LockSupport.parkNanos(100_000);
            }
        }
        finish();
    }

    private void post(int rc) {
        if (rc == 0) {
            posted++;
        } else {
            say("post refused " + rc);
            if (ended == 0) {
                ended = now();
            }
        }
    }

    /** Reads completions (successes into {@link #entries}, returned), error completions and events. */
    private int poll() throws Exception {
        int n = cq.read(entries, entries.length);
        if (n > 0) {
            ok += n;
            return n;
        }
        if (n == -Errno.EAVAIL) {
            cq.readErr(err, 0);
            if (errors++ == 0) {
                String text = err.errDataSize() > 0 ? new String(err.errData(), 0, err.errDataSize(), StandardCharsets.UTF_8) : "";
                say("error " + now() + " " + err.err() + " " + err.provErrno() + " " + text);
            }
            if (ended == 0) {
                ended = now();
            }
            return 0;
        }
        EqEntry e = new EqEntry();
        if (eq.read(e, 0) == 1 && e.event() == Fi.FI_SHUTDOWN) {
            shutdowns++;
            String text = e.payloadLength() > 0 ? new String(e.payload(), 0, e.payloadLength(), StandardCharsets.UTF_8) : "";
            say("shutdown " + now() + " " + text);
            if (ended == 0) {
                ended = now();
            }
        }
        if (n == -Errno.EAGAIN) {
            Thread.sleep(0, 200_000);
        }
        return 0;
    }

    private void report(String what, long count) {
        long t = now();
        if (statsAt > 0 && t >= statsAt) {
            statsAt = 0;
            say(ProcessStats.line("warm"));
        }
        if (t - lastReport >= 1000) {
            lastReport = t;
            say(what + " " + count);
        }
    }

    /** After the end: 2 s more for a second FI_SHUTDOWN that must not come, then the account. */
    private void finish() throws Exception {
        long until = now() + 2000;
        while (now() < until) {
            poll();
        }
        if (opts.containsKey("statsAfter")) {
            say(ProcessStats.line("end"));
        }
        say("final posted=" + posted + " ok=" + ok + " errors=" + errors + " shutdowns=" + shutdowns);
        System.exit(0);
    }
}
