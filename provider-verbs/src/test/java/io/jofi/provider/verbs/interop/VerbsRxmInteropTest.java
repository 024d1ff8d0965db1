package io.jofi.provider.verbs.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.ProviderInfo;
import io.jofi.ProviderState;
import io.jofi.TaggedMsg;
import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A JOFI verbs RDM endpoint (the rxm layer over JOFI's verbs MSG endpoints) against libfabric
 * 1.17's own {@code fi_pingpong -p verbs -e rdm} ({@code verbs;ofi_rxm}, Debian's
 * libfabric-bin in the guest image), in both roles, in the VM (provider-verbs/vm/run-tests):
 * fi_pingpong's choreography (libfabric util/pingpong.c) — names exchanged over a control
 * socket (4-byte length in network order, 4-byte address format, the name), a "q"/"a" sync
 * per size, the ping-pong iterations (inject below the inject size), the "cnt ok" exchange and
 * the closing "fin" sent with FI_TRANSMIT_COMPLETE. Its default sizes, 64 B ... 1 MiB, are
 * eager messages up to the 16 KiB eager limit and above it what rxm over verbs moves by
 * segmentation (the C side's 64 KiB) and by rendezvous (RMA read of the sender's registered
 * buffer), in both directions; untagged and tagged.
 *
 * <p>Skipped, with a message, outside the VM, when verbs is unavailable or fi_pingpong is not
 * installed.
 */
@Timeout(300)
class VerbsRxmInteropTest {
    private static final int ITERATIONS = 10;
    private static final String[] SIZE_ROWS = {"64", "256", "1k", "4k", "64k", "1m"};
    private static final int[] SIZES = {64, 256, 1024, 4096, 65536, 1048576};
    /** fi_pingpong's receive buffer without -S: PP_MAX_DATA_MSG = 4 MiB + 2 MiB. */
    private static final int RX_SIZE = (1 << 22) + (1 << 21);
    private static final int FI_SOCKADDR_IN = 2;
    private static final long TIMEOUT_MS = 60_000;
    /** fi_pingpong's tag. */
    private static final long TAG = 1234;
    private static final String HOST = VerbsNativePeer.HOST;

    private Path log;

    @BeforeEach
    void inTheVmWithPingpong() {
        Assumptions.assumeTrue(Boolean.getBoolean("jofi.verbs.vm"),
                "verbs rxm interop runs in the soft-RoCE VM only: provider-verbs/vm/run-tests");
        ProviderInfo verbs = Fabrics.standalone().providers().stream()
                .filter(p -> p.name().equals("verbs")).findFirst().orElse(null);
        Assumptions.assumeTrue(verbs != null, "verbs unavailable: the provider is not registered");
        Assumptions.assumeTrue(verbs.state() == ProviderState.AVAILABLE, "verbs unavailable: " + verbs.reason());
        boolean found = false;
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            found |= Files.isExecutable(Path.of(dir, "fi_pingpong"));
        }
        Assumptions.assumeTrue(found, "fi_pingpong (libfabric-bin) is not installed in the guest");
    }

    @ParameterizedTest
    @ValueSource(strings = {"msg", "tagged"})
    void jofiClientAgainstCServer(String mode) throws Exception {
        try (Side me = new Side()) {
            int port = freePort();
            Process c = start("fi_pingpong", "-p", "verbs", "-e", "rdm", "-d", me.device,
                    "-I", String.valueOf(ITERATIONS), "-m", mode, "-B", String.valueOf(port));
            try (Socket ctrl = connectWithRetry(port)) {
                ctrl.setSoTimeout((int) TIMEOUT_MS);
                DataInputStream in = new DataInputStream(ctrl.getInputStream());
                OutputStream out = ctrl.getOutputStream();
                Pingpong pp = new Pingpong(me, true, mode.equals("tagged"));
                pp.postReceive();
                byte[] serverName = recvName(in);
                sendName(out, me.ep.getName());
                pp.peer = me.insert(serverName);
                pp.run(in, out);
                creditsUsed(me);
            } catch (Throwable t) {
                throw failed(c, t);
            }
            finish(c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"msg", "tagged"})
    void cClientAgainstJofiServer(String mode) throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getByName(HOST));
             Side me = new Side()) {
            Process c = start("fi_pingpong", "-p", "verbs", "-e", "rdm", "-d", me.device,
                    "-I", String.valueOf(ITERATIONS), "-m", mode, "-P", String.valueOf(listener.getLocalPort()), HOST);
            try {
                listener.setSoTimeout((int) TIMEOUT_MS);
                try (Socket ctrl = listener.accept()) {
                    ctrl.setSoTimeout((int) TIMEOUT_MS);
                    DataInputStream in = new DataInputStream(ctrl.getInputStream());
                    OutputStream out = ctrl.getOutputStream();
                    Pingpong pp = new Pingpong(me, false, mode.equals("tagged"));
                    pp.postReceive();
                    sendName(out, me.ep.getName());
                    byte[] clientName = recvName(in);
                    pp.peer = me.insert(clientName);
                    pp.run(in, out);
                    creditsUsed(me);
                }
            } catch (Throwable t) {
                throw failed(c, t);
            }
            finish(c);
        }
    }

    /**
     * libfabric's verbs;ofi_rxm offers rxm's credits (verbs MSG endpoints without a shared
     * receive queue) and so does JOFI's verbs: both sides granted credits, and the run above
     * kept to them.
     */
    private static void creditsUsed(Side me) {
        io.jofi.spi.util.stats.CounterGroup g = ((io.jofi.spi.util.UtilEndpoint) me.ep).counters();
        for (String name : new String[] {"credit grants sent", "credit grants received"}) {
            long v = g.counters().stream().filter(c -> c.label().equals(g.owner() + ": " + name)).findFirst()
                    .map(io.jofi.spi.util.stats.StatsCounter::get)
                    .orElseThrow(() -> new AssertionError("no counter " + name + " in " + g.counters()));
            org.junit.jupiter.api.Assertions.assertTrue(v >= 1, name + ": " + v + " (credits not agreed with the C peer?)");
        }
    }

    /** The JOFI side: a verbs RDM endpoint on {@link #HOST} with its AV and CQs (AUTO progress). */
    private static final class Side implements AutoCloseable {
        final Fabric fabric;
        final Domain domain;
        final AddressVector av;
        final CompletionQueue txCq;
        final CompletionQueue rxCq;
        final Endpoint ep;
        final String device;
        final int injectSize;

        Side() throws FabricException {
            Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_TAGGED);
            hints.epAttr().type(EpType.RDM);
            hints.fabricAttr().provName("verbs");
            Info info = Fabrics.standalone().getInfo(HOST, "0", Fi.FI_SOURCE, hints).get(0);
            device = info.domainAttr().name();
            injectSize = (int) info.txAttr().injectSize();
            fabric = Fabrics.standalone().fabric(info.fabricAttr(), null);
            domain = fabric.domain(info, null);
            av = domain.openAv(new AvAttr(), null);
            txCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED).size(256), "tx");
            rxCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED).size(256), "rx");
            ep = domain.endpoint(info, "jofi-rdm");
            ep.bind(av, 0);
            ep.bind(txCq, Fi.FI_TRANSMIT);
            ep.bind(rxCq, Fi.FI_RECV);
            ep.enable();
        }

        long insert(byte[] name) {
            long[] fi = {Fi.FI_ADDR_NOTAVAIL};
            assertEquals(1, av.insert(new byte[][] {name}, fi, 0, null), "av insert");
            return fi[0];
        }

        @Override
        public void close() throws FabricException {
            ep.close();
            av.close();
            txCq.close();
            rxCq.close();
            domain.close();
            fabric.close();
        }
    }

    /** fi_pingpong's choreography on the JOFI side. */
    private static final class Pingpong {
        final Side me;
        final boolean client;
        /** fi_pingpong -m tagged: fi_tsend/fi_trecv with its TAG 1234. */
        final boolean tagged;
        final ByteBuffer rx = ByteBuffer.allocateDirect(RX_SIZE);
        final ByteBuffer tx = ByteBuffer.allocateDirect(RX_SIZE);
        final CqEntry[] entry = {new CqEntry()};
        long peer;

        Pingpong(Side me, boolean client, boolean tagged) {
            this.me = me;
            this.client = client;
            this.tagged = tagged;
            for (int i = 0; i < RX_SIZE; i++) {
                tx.put(i, (byte) i);
            }
        }

        void postReceive() {
            rx.clear();
            assertEquals(0, tagged ? me.ep.trecv(rx, null, Fi.FI_ADDR_UNSPEC, TAG, 0, "rx")
                    : me.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx"));
        }

        void run(DataInputStream in, OutputStream out) throws IOException {
            for (int size : SIZES) {
                sync(in, out);
                int acked = 0;
                for (int i = 0; i < ITERATIONS; i++) {
                    if (client) {
                        transmit(size);
                        receive(size);
                    } else {
                        receive(size);
                        transmit(size);
                    }
                    acked++;
                }
                count(in, out, acked);
            }
            finalizeRun();
        }

        private void sync(DataInputStream in, OutputStream out) throws IOException {
            if (client) {
                out.write(new byte[] {'q', 0});
                out.flush();
                assertArrayEquals(new byte[] {'a', 0}, readN(in, 2), "sync answer");
            } else {
                assertArrayEquals(new byte[] {'q', 0}, readN(in, 2), "sync question");
                out.write(new byte[] {'a', 0});
                out.flush();
            }
        }

        private void count(DataInputStream in, OutputStream out, int acked) throws IOException {
            byte[] ok = "cnt ok\0".getBytes(StandardCharsets.US_ASCII);
            if (client) {
                byte[] msg = new byte[10];
                byte[] digits = Integer.toString(acked).getBytes(StandardCharsets.US_ASCII);
                System.arraycopy(digits, 0, msg, 0, digits.length);
                out.write(msg);
                out.flush();
                assertArrayEquals(ok, readN(in, ok.length), "count answer");
            } else {
                readN(in, 10);
                out.write(ok);
                out.flush();
            }
        }

        private void transmit(int size) {
            tx.clear().limit(size);
            if (size < me.injectSize) {
                retry(() -> tagged ? me.ep.tinject(tx, peer, TAG) : me.ep.inject(tx, peer));
            } else {
                retry(() -> tagged ? me.ep.tsend(tx, null, peer, TAG, "tx") : me.ep.send(tx, null, peer, "tx"));
                await(me.txCq);
            }
        }

        private void receive(int size) {
            CqEntry e = await(me.rxCq);
            assertEquals(size, e.len(), "received length"); // fi_pingpong without -c sends unchecked bytes
            postReceive();
        }

        private void finalizeRun() {
            ByteBuffer fin = ByteBuffer.allocateDirect(4);
            fin.put(new byte[] {'f', 'i', 'n', 0}).flip();
            TaggedMsg msg = new TaggedMsg().tag(TAG).buffer(fin, null).addr(peer).context("fin");
            retry(() -> tagged ? me.ep.tsendMsg(msg, Fi.FI_TRANSMIT_COMPLETE) : me.ep.sendMsg(msg, Fi.FI_TRANSMIT_COMPLETE));
            await(me.txCq);
            CqEntry e = await(me.rxCq);
            assertEquals(4, e.len(), "fin length");
            assertEquals('f', rx.get(0));
        }

        private void retry(IntSupplier post) {
            long deadline = System.currentTimeMillis() + TIMEOUT_MS;
            while (true) {
                int rc = post.getAsInt();
                if (rc == 0) {
                    return;
                }
                assertEquals(-Errno.EAGAIN, rc, "post: " + Errno.strerror(-rc));
                if (System.currentTimeMillis() > deadline) {
                    fail("post kept answering EAGAIN");
                }
                Thread.onSpinWait();
            }
        }

        private CqEntry await(CompletionQueue cq) {
            long deadline = System.currentTimeMillis() + TIMEOUT_MS;
            while (true) {
                int rc = cq.read(entry, 1);
                if (rc == 1) {
                    return entry[0];
                }
                if (rc == -Errno.EAVAIL) {
                    CqErrEntry err = new CqErrEntry();
                    cq.readErr(err, 0);
                    fail("error completion " + Errno.strerror(err.err()) + " for " + err.context());
                }
                if (System.currentTimeMillis() > deadline) {
                    fail("no completion within " + TIMEOUT_MS + " ms");
                }
                Thread.onSpinWait();
            }
        }
    }

    // ------------------------------------------------------------------ the control socket

    private static byte[] recvName(DataInputStream in) throws IOException {
        int len = in.readInt(); // network order
        byte[] format = readN(in, 4); // host order (little-endian)
        assertEquals(FI_SOCKADDR_IN, ByteBuffer.wrap(format).order(ByteOrder.LITTLE_ENDIAN).getInt(), "address format");
        return readN(in, len);
    }

    private static void sendName(OutputStream out, byte[] name) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8 + name.length);
        b.putInt(name.length);
        b.order(ByteOrder.LITTLE_ENDIAN).putInt(FI_SOCKADDR_IN);
        b.put(name);
        out.write(b.array());
        out.flush();
    }

    private static byte[] readN(DataInputStream in, int n) throws IOException {
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static Socket connectWithRetry(int port) throws Exception {
        long deadline = System.currentTimeMillis() + TIMEOUT_MS;
        while (true) {
            try {
                Socket s = new Socket();
                s.connect(new InetSocketAddress(InetAddress.getByName(HOST), port), 1000);
                return s;
            } catch (IOException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private Process start(String... command) throws IOException {
        log = Files.createTempFile("fi_pingpong", ".log");
        log.toFile().deleteOnExit();
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putIfAbsent("FI_LOG_LEVEL", "warn");
        // rxm sizes its MSG CQ for FI_UNIVERSE_SIZE peers (default 256): more than soft-RoCE's
        // max_cqe, so its CQ could not be made ("Unable to create verbs CQ"); two peers here
        pb.environment().put("FI_UNIVERSE_SIZE", "4");
        return pb.start();
    }

    /** The JOFI side failed: stop the C peer and say what both saw. */
    private AssertionError failed(Process p, Throwable t) throws Exception {
        p.destroyForcibly();
        p.waitFor(5, TimeUnit.SECONDS);
        return new AssertionError(t.getMessage() + "; fi_pingpong's output:\n" + Files.readString(log), t);
    }

    private void finish(Process p) throws Exception {
        boolean ended = p.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        String out = Files.readString(log);
        if (!ended) {
            p.destroyForcibly();
            fail("fi_pingpong did not end within " + TIMEOUT_MS + " ms; its output:\n" + out);
        }
        assertEquals(0, p.exitValue(), "fi_pingpong exit status; its output:\n" + out);
        for (String size : SIZE_ROWS) {
            assertTrue(out.lines().anyMatch(l -> l.matches(size + "\\s+" + ITERATIONS + "\\s+=" + ITERATIONS + "\\s.*")),
                    "fi_pingpong's row for " + size + " with " + ITERATIONS + " sent and acknowledged:\n" + out);
        }
        System.out.println("fi_pingpong -p verbs -e rdm against JOFI verbs rxm:\n" + out);
    }
}
