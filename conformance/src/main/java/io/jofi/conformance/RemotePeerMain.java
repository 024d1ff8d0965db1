package io.jofi.conformance;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.Counter;
import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.Progress;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * Side b of the cross-process conformance suites ({@link CrossProcessConformance}): a child
 * JVM with one RDM endpoint of any provider (found through {@code Fabrics.standalone()}),
 * driven by one command per line on stdin and answering on stdout ({@link RemotePeer} is the
 * parent's end). Between commands it does nothing: in {@code MANUAL} progress its endpoint
 * is then not progressed at all (one-sided RMA into it is tested that way), unless
 * {@code serve} started a thread that drives progress.
 *
 * <pre>
 * args:  provider AUTO|MANUAL caps(hex)
 * out:   NAME &lt;hex of getName()&gt;                        once enabled
 * in:    peer &lt;hex name&gt;                -> OK           insert; the peer of later sends
 *        recv &lt;ctx&gt; &lt;len&gt;               -> OK           post a receive of len bytes
 *        trecv &lt;ctx&gt; &lt;len&gt; &lt;tag&gt;        -> OK
 *        send &lt;ctx&gt; &lt;len&gt; &lt;seed&gt; [dc]   -> OK           byte i = seed + i; dc: FI_DELIVERY_COMPLETE
 *        tsend &lt;ctx&gt; &lt;len&gt; &lt;seed&gt; &lt;tag&gt; -> OK
 *        senddata &lt;ctx&gt; &lt;len&gt; &lt;seed&gt; &lt;data&gt; -> OK     remote CQ data
 *        cq tx|rx &lt;n&gt;                  -> n lines, END  C ctx len flags(hex) data tag | E ctx err len olen
 *        check &lt;ctx&gt; &lt;len&gt; &lt;seed&gt;       -> OK | BAD &lt;i&gt;  the receive buffer of ctx
 *        region &lt;size&gt;                 -> KEY &lt;key&gt; &lt;addr&gt;  Domain.allocateBuffer, remote read/write
 *        fill|verify &lt;off&gt; &lt;len&gt; &lt;seed&gt; -> OK | BAD &lt;i&gt;  in the region, no progress
 *        get &lt;off&gt;                      -> VALUE &lt;v&gt;    a long in host order, no progress
 *        counter rx|rw &lt;atLeast&gt;         -> VALUE &lt;v&gt;    FI_RECV / FI_REMOTE_WRITE counter (reads drive progress)
 *        serve | unserve                -> OK           a thread drives progress / stops
 *        quit                           -> BYE
 * errors: ERR &lt;what&gt;
 * </pre>
 */
public final class RemotePeerMain {
    private static final long WAIT_NANOS = 10_000_000_000L;
    private static final CqEntry[] NONE = new CqEntry[0];

    private final PrintStream out;
    private final Fabric fabric;
    private final Domain domain;
    private final CompletionQueue txCq;
    private final CompletionQueue rxCq;
    private final AddressVector av;
    private final Counter rxCntr;
    private final Counter rwCntr;
    private final Endpoint ep;
    private final Map<String, ByteBuffer> buffers = new HashMap<>();
    private long peer = Fi.FI_ADDR_NOTAVAIL;
    private ByteBuffer region;
    private MemoryRegion regionMr;
    private volatile boolean serving;
    private Thread server;

    private RemotePeerMain(String provider, Progress progress, long caps, PrintStream out) throws Exception {
        this.out = out;
        Fabrics fabrics = Fabrics.standalone();
        Info hints = new Info().caps(caps);
        hints.epAttr().type(EpType.RDM);
        hints.fabricAttr().provName(provider);
        hints.domainAttr().dataProgress(progress);
        List<Info> infos = fabrics.getInfo(null, null, 0, hints);
        Info info = infos.get(0);
        fabric = fabrics.fabric(info.fabricAttr(), null);
        domain = fabric.domain(info, null);
        txCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), null);
        rxCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), null);
        av = domain.openAv(new AvAttr().type(info.domainAttr().avType()), null);
        rxCntr = domain.openCounter(new CounterAttr(), null);
        ep = domain.endpoint(info, null);
        ep.bind(txCq, Fi.FI_TRANSMIT);
        ep.bind(rxCq, Fi.FI_RECV);
        ep.bind(av, 0);
        ep.bind(rxCntr, Fi.FI_RECV);
        if ((info.caps() & Fi.FI_RMA_EVENT) != 0) {
            rwCntr = domain.openCounter(new CounterAttr(), null);
            ep.bind(rwCntr, Fi.FI_REMOTE_WRITE);
        } else {
            rwCntr = null;
        }
        ep.enable();
    }

    /** Entry point of the child JVM; see the class comment. */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.US_ASCII);
        RemotePeerMain m = new RemotePeerMain(args[0], Progress.valueOf(args[1]), Long.parseUnsignedLong(args[2], 16), out);
        out.println("NAME " + HexFormat.of().formatHex(m.ep.getName()));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split(" ");
            try {
                if (!m.execute(w)) {
                    return;
                }
            } catch (Exception | AssertionError e) {
                out.println("ERR " + w[0] + ": " + e);
            }
        }
    }

    private boolean execute(String[] w) throws Exception {
        switch (w[0]) {
            case "peer" -> {
                long[] fi = {Fi.FI_ADDR_NOTAVAIL};
                if (av.insert(new byte[][] {HexFormat.of().parseHex(w[1])}, fi, 0, null) != 1) {
                    throw new IllegalStateException("av.insert failed");
                }
                peer = fi[0];
                out.println("OK");
            }
            case "recv" -> {
                ByteBuffer b = ByteBuffer.allocateDirect(Integer.parseInt(w[2]));
                buffers.put(w[1], b);
                post(() -> ep.recv(b, null, Fi.FI_ADDR_UNSPEC, w[1]), "recv");
            }
            case "trecv" -> {
                ByteBuffer b = ByteBuffer.allocateDirect(Integer.parseInt(w[2]));
                buffers.put(w[1], b);
                long tag = Long.parseUnsignedLong(w[3], 16);
                post(() -> ep.trecv(b, null, Fi.FI_ADDR_UNSPEC, tag, 0, w[1]), "trecv");
            }
            case "send" -> {
                ByteBuffer b = pattern(Integer.parseInt(w[2]), Integer.parseInt(w[3]));
                if (w.length > 4 && "dc".equals(w[4])) {
                    Msg msg = new Msg().buffer(b, null).addr(peer).context(w[1]);
                    post(() -> ep.sendMsg(msg, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION), "sendMsg");
                } else {
                    post(() -> ep.send(b, null, peer, w[1]), "send");
                }
            }
            case "tsend" -> {
                ByteBuffer b = pattern(Integer.parseInt(w[2]), Integer.parseInt(w[3]));
                long tag = Long.parseUnsignedLong(w[4], 16);
                post(() -> ep.tsend(b, null, peer, tag, w[1]), "tsend");
            }
            case "senddata" -> {
                ByteBuffer b = pattern(Integer.parseInt(w[2]), Integer.parseInt(w[3]));
                long data = Long.parseUnsignedLong(w[4], 16);
                post(() -> ep.sendData(b, null, data, peer, w[1]), "sendData");
            }
            case "cq" -> completions("tx".equals(w[1]) ? txCq : rxCq, Integer.parseInt(w[2]));
            case "check" -> out.println(patternAt(buffers.get(w[1]), 0, Integer.parseInt(w[2]), Integer.parseInt(w[3])));
            case "region" -> {
                region = domain.allocateBuffer(Long.parseLong(w[1])).order(ByteOrder.nativeOrder());
                regionMr = domain.register(region, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 0x5e0001L, 0, null);
                out.println("KEY " + Long.toHexString(regionMr.key()) + " " + Long.toHexString(regionMr.address()));
            }
            case "fill" -> {
                int off = Integer.parseInt(w[1]);
                int len = Integer.parseInt(w[2]);
                int seed = Integer.parseInt(w[3]);
                for (int i = 0; i < len; i++) {
                    region.put(off + i, (byte) (seed + i));
                }
                out.println("OK");
            }
            case "verify" -> out.println(patternAt(region, Integer.parseInt(w[1]), Integer.parseInt(w[2]), Integer.parseInt(w[3])));
            case "get" -> out.println("VALUE " + region.getLong(Integer.parseInt(w[1])));
            case "counter" -> {
                Counter c = "rx".equals(w[1]) ? rxCntr : rwCntr;
                if (c == null) {
                    throw new IllegalStateException("no " + w[1] + " counter (the provider lacks FI_RMA_EVENT)");
                }
                long atLeast = Long.parseLong(w[2]);
                long deadline = System.nanoTime() + WAIT_NANOS;
                long v;
                while ((v = c.read()) < atLeast && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                out.println("VALUE " + v);
            }
            case "serve" -> {
                serving = true;
                server = new Thread(() -> {
                    while (serving) {
                        txCq.read(NONE, 0);
                        rxCq.read(NONE, 0);
                        Thread.onSpinWait();
                    }
                }, "remote-peer-progress");
                server.setDaemon(true);
                server.start();
                out.println("OK");
            }
            case "unserve" -> {
                serving = false;
                if (server != null) {
                    server.join(WAIT_NANOS / 1_000_000);
                }
                out.println("OK");
            }
            case "quit" -> {
                serving = false;
                if (regionMr != null) {
                    regionMr.close();
                }
                ep.close();
                if (rwCntr != null) {
                    rwCntr.close();
                }
                rxCntr.close();
                av.close();
                txCq.close();
                rxCq.close();
                domain.close();
                fabric.close();
                out.println("BYE");
                return false;
            }
            default -> out.println("ERR unknown command " + String.join(" ", w));
        }
        return true;
    }

    /** Posts until not -EAGAIN (driving progress), bounded; answers OK or ERR. */
    private void post(IntSupplier op, String what) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        int rc;
        while ((rc = op.getAsInt()) == -Errno.EAGAIN && System.nanoTime() < deadline) {
            txCq.read(NONE, 0);
            rxCq.read(NONE, 0);
        }
        out.println(rc == 0 ? "OK" : "ERR " + what + " returned " + Errno.name(-rc));
    }

    /** Reads n completions (errors included), bounded, driving progress; prints them and END. */
    private void completions(CompletionQueue cq, int n) {
        CqEntry[] one = {new CqEntry()};
        long deadline = System.nanoTime() + WAIT_NANOS;
        int got = 0;
        while (got < n && System.nanoTime() < deadline) {
            int rc = cq.read(one, 1);
            if (rc == 1) {
                CqEntry e = one[0];
                out.println("C " + e.context() + " " + e.len() + " " + Long.toHexString(e.flags()) + " "
                        + Long.toHexString(e.data()) + " " + Long.toHexString(e.tag()));
                got++;
            } else if (rc == -Errno.EAVAIL) {
                CqErrEntry e = new CqErrEntry();
                cq.readErr(e, 0);
                out.println("E " + e.context() + " " + Errno.name(e.err()) + " " + e.len() + " " + e.olen());
                got++;
            } else {
                Thread.onSpinWait();
            }
        }
        out.println(got < n ? "TIMEOUT" : "END");
    }

    private static ByteBuffer pattern(int n, int seed) {
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        for (int i = 0; i < n; i++) {
            b.put(i, (byte) (seed + i));
        }
        return b;
    }

    private static String patternAt(ByteBuffer b, int off, int n, int seed) {
        if (b == null) {
            return "BAD no buffer";
        }
        for (int i = 0; i < n; i++) {
            if (b.get(off + i) != (byte) (seed + i)) {
                return "BAD " + i;
            }
        }
        return "OK";
    }
}
