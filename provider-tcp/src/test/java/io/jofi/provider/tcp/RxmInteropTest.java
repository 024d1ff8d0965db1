package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
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
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A JOFI {@link io.jofi.provider.rxm.RxmEndpoint} over the tcp provider's MSG endpoints against
 * libfabric 1.17's own {@code fi_pingpong -p tcp -e rdm} ({@code tcp;ofi_rxm}, from Debian's
 * libfabric-bin), in both roles, playing fi_pingpong's choreography (libfabric util/pingpong.c):
 * names exchanged over a control socket (4-byte length in network order, 4-byte address format,
 * the name), a "q"/"a" sync per size, the ping-pong iterations (inject below the inject size),
 * the "cnt ok" exchange, and the closing "fin" sent with FI_TRANSMIT_COMPLETE. The default size
 * list 64 B ... 1 MiB covers eager messages (up to 16 KiB) and rendezvous by RMA read in both
 * directions. Skipped when fi_pingpong is not installed.
 */
class RxmInteropTest {
    private static final int[] SIZES = {64, 256, 1024, 4096, 65536, 1048576};
    private static final int ITERATIONS = 10;
    /** fi_pingpong's receive buffer without -S: PP_MAX_DATA_MSG = 4 MiB + 2 MiB. */
    private static final int RX_SIZE = (1 << 22) + (1 << 21);
    private static final int INJECT_SIZE = 16384;
    private static final int FI_SOCKADDR_IN = 2;
    private static final long TIMEOUT_MS = 30_000;
    /** fi_pingpong's tag. */
    private static final long TAG = 1234;

    private static void assumePingpong() {
        boolean found = false;
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, "fi_pingpong"))) {
                found = true;
            }
        }
        Assumptions.assumeTrue(found, "fi_pingpong (apt-get install libfabric-bin) is not installed: rxm interop skipped");
    }

    /**
     * "msg" or "tagged" (fi_pingpong's -m); ",write" makes both sides rendezvous by write;
     * ",sar" runs the C side with dynamic receive buffers
     * off (FI_OFI_RXM_ENABLE_DYN_RBUF=0): then rxm over tcp sends 16 KiB..128 KiB by
     * segmentation and tagged eager messages with an rxm header, as it does over verbs — and
     * JOFI sends that range in segments too (its SAR limit 128 KiB), so the C side takes them.
     */
    @ParameterizedTest
    @ValueSource(strings = {"msg", "tagged", "msg,sar", "tagged,sar", "msg,write", "tagged,write"})
    void jofiClientAgainstCServer(String variant) throws Exception {
        assumePingpong();
        String mode = variant.split(",")[0];
        sar = variant.endsWith(",sar");
        write = variant.endsWith(",write");
        int port = freePort();
        Process c = start("fi_pingpong", "-p", "tcp", "-e", "rdm", "-d", "lo", "-I", String.valueOf(ITERATIONS),
                "-m", mode, "-B", String.valueOf(port));
        try (Socket ctrl = connectWithRetry(port);
             RxmOverTcpTest.Side me = new RxmOverTcpTest.Side(Progress.MANUAL, settings())) {
            ctrl.setSoTimeout((int) TIMEOUT_MS);
            DataInputStream in = new DataInputStream(ctrl.getInputStream());
            OutputStream out = ctrl.getOutputStream();
            Pingpong pp = new Pingpong(me, true, mode.equals("tagged"));
            pp.postReceive();
            byte[] serverName = recvName(in);
            sendName(out, me.ep.getName());
            pp.peer = me.insert(serverName);
            pp.run(in, out);
        } catch (Throwable t) {
            throw failed(c, t);
        }
        finish(c);
    }

    @ParameterizedTest
    @ValueSource(strings = {"msg", "tagged", "msg,sar", "tagged,sar", "msg,write", "tagged,write"})
    void cClientAgainstJofiServer(String variant) throws Exception {
        assumePingpong();
        String mode = variant.split(",")[0];
        sar = variant.endsWith(",sar");
        write = variant.endsWith(",write");
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             RxmOverTcpTest.Side me = new RxmOverTcpTest.Side(Progress.MANUAL, settings())) {
            Process c = start("fi_pingpong", "-p", "tcp", "-e", "rdm", "-d", "lo", "-I", String.valueOf(ITERATIONS),
                    "-m", mode, "-P", String.valueOf(listener.getLocalPort()), "127.0.0.1");
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
                }
            } catch (Throwable t) {
                throw failed(c, t);
            }
            finish(c);
        }
    }

    /** fi_pingpong's choreography on the JOFI side. */
    static final class Pingpong {
        final RxmOverTcpTest.Side me;
        final boolean client;
        /** fi_pingpong -m tagged: fi_tsend/fi_trecv with its TAG 1234. */
        final boolean tagged;
        final ByteBuffer rx = ByteBuffer.allocateDirect(RX_SIZE);
        final ByteBuffer tx = ByteBuffer.allocateDirect(RX_SIZE);
        final io.jofi.CqEntry[] entry = {new io.jofi.CqEntry()};
        long peer;

        Pingpong(RxmOverTcpTest.Side me, boolean client, boolean tagged) {
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
            if (size < INJECT_SIZE) {
                retry(() -> tagged ? me.ep.tinject(tx, peer, TAG) : me.ep.inject(tx, peer));
            } else {
                retry(() -> tagged ? me.ep.tsend(tx, null, peer, TAG, "tx") : me.ep.send(tx, null, peer, "tx"));
                await(me.txCq);
            }
        }

        private void receive(int size) {
            io.jofi.CqEntry e = await(me.rxCq);
            assertEquals(size, e.len(), "received length"); // fi_pingpong without -c sends unchecked bytes
            postReceive();
        }

        private void finalizeRun() {
            ByteBuffer fin = ByteBuffer.allocateDirect(4);
            fin.put(new byte[] {'f', 'i', 'n', 0}).flip();
            io.jofi.TaggedMsg msg = new io.jofi.TaggedMsg().tag(TAG).buffer(fin, null).addr(peer).context("fin");
            retry(() -> tagged ? me.ep.tsendMsg(msg, Fi.FI_TRANSMIT_COMPLETE) : me.ep.sendMsg(msg, Fi.FI_TRANSMIT_COMPLETE));
            await(me.txCq);
            io.jofi.CqEntry e = await(me.rxCq);
            assertEquals(4, e.len(), "fin length");
            assertEquals('f', rx.get(0));
        }

        private void retry(java.util.function.IntSupplier post) {
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
                me.rxCq.read(entry, 0);
            }
        }

        private io.jofi.CqEntry await(io.jofi.CompletionQueue cq) {
            long deadline = System.currentTimeMillis() + TIMEOUT_MS;
            while (true) {
                int rc = cq.read(entry, 1);
                if (rc == 1) {
                    return entry[0];
                }
                if (rc == -Errno.EAVAIL) {
                    io.jofi.CqErrEntry err = new io.jofi.CqErrEntry();
                    cq.readErr(err, 0);
                    fail("error completion " + Errno.strerror(err.err()) + " for " + err.context());
                }
                if (System.currentTimeMillis() > deadline) {
                    fail("no completion within " + TIMEOUT_MS + " ms");
                }
                // the other queue moves progress too
                (cq == me.rxCq ? me.txCq : me.rxCq).read(new io.jofi.CqEntry[0], 0);
            }
        }
    }

    // ------------------------------------------------------------------ the control socket

    static byte[] recvName(DataInputStream in) throws IOException {
        int len = in.readInt(); // network order
        byte[] format = readN(in, 4); // host order (little-endian)
        assertEquals(FI_SOCKADDR_IN, ByteBuffer.wrap(format).order(ByteOrder.LITTLE_ENDIAN).getInt(), "address format");
        return readN(in, len);
    }

    static void sendName(OutputStream out, byte[] name) throws IOException {
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
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
                return s;
            } catch (IOException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    private static final StringBuffer OUTPUT = new StringBuffer();
    private static boolean sar;
    /** ",write": rendezvous by write on both sides (FI_OFI_RXM_USE_RNDV_WRITE=1 for the C side). */
    private static boolean write;

    private static io.jofi.provider.rxm.RxmSettings settings() {
        // ",sar": JOFI sends segments as well (16 KiB..128 KiB), as rxm does over verbs
        return io.jofi.provider.rxm.RxmSettings.defaults().withRendezvousByWrite(write).withSarLimit(sar ? 128 << 10 : 0);
    }

    private static Process start(String... command) throws IOException {
        Path log = Files.createTempFile("fi_pingpong", ".log");
        log.toFile().deleteOnExit();
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putIfAbsent("FI_LOG_LEVEL", "warn");
        if (sar) {
            pb.environment().put("FI_OFI_RXM_ENABLE_DYN_RBUF", "0");
        }
        if (write) {
            pb.environment().put("FI_OFI_RXM_USE_RNDV_WRITE", "1");
        }
        Process p = pb.start();
        OUTPUT.setLength(0);
        OUTPUT.append(log);
        return p;
    }

    /** The JOFI side failed: stop the C peer and say what both saw. */
    private static AssertionError failed(Process p, Throwable t) throws Exception {
        p.destroyForcibly();
        p.waitFor(5, TimeUnit.SECONDS);
        String out = Files.readString(Path.of(OUTPUT.toString()));
        return new AssertionError(t.getMessage() + "; fi_pingpong's output:\n" + out, t);
    }

    private static void finish(Process p) throws Exception {
        boolean ended = p.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        String out = Files.readString(Path.of(OUTPUT.toString()));
        if (!ended) {
            p.destroyForcibly();
            fail("fi_pingpong did not end within " + TIMEOUT_MS + " ms; its output:\n" + out);
        }
        assertEquals(0, p.exitValue(), "fi_pingpong exit status; its output:\n" + out);
        for (String size : new String[] {"64", "256", "1k", "4k", "64k", "1m"}) {
            assertTrue(out.lines().anyMatch(l -> l.matches(size + "\\s+" + ITERATIONS + "\\s+=" + ITERATIONS + "\\s.*")),
                    "fi_pingpong's row for " + size + " with " + ITERATIONS + " sent and acknowledged:\n" + out);
        }
        System.out.println("fi_pingpong against JOFI rxm:\n" + out);
    }
}
