package io.jofi.provider.tcp;

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
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.provider.rxm.RxmEndpoint;
import io.jofi.provider.rxm.RxmSettings;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.IntSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two {@link RxmEndpoint}s over the tcp provider's MSG endpoints on 127.0.0.1: eager and
 * rendezvous messages, tagged and untagged, remote CQ data, the sender's fi_addr (FI_SOURCE),
 * unexpected messages, both progress modes.
 */
class RxmOverTcpTest {
    static final long TIMEOUT_MS = 20_000;

    /** One side: fabric, domain, CQs, AV and the rxm endpoint. */
    static final class Side implements AutoCloseable {
        final TcpProvider provider = new TcpProvider();
        final Fabric fabric;
        final Domain domain;
        final CompletionQueue txCq;
        final CompletionQueue rxCq;
        final AddressVector av;
        final RxmEndpoint ep;

        Side(Progress mode) throws FabricException {
            this(mode, RxmSettings.defaults());
        }

        Side(Progress mode, RxmSettings settings) throws FabricException {
            this(mode, settings, 0);
        }

        /** With MSG endpoints of {@code msgQueue} transmits and receives (0: the provider's default). */
        Side(Progress mode, RxmSettings settings, int msgQueue) throws FabricException {
            this(mode, settings, msgQueue, "127.0.0.1");
        }

        /** Bound to {@code node} (an address of this host). */
        Side(Progress mode, RxmSettings settings, int msgQueue, String node) throws FabricException {
            Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_RMA);
            hints.epAttr().type(EpType.MSG);
            if (msgQueue > 0) {
                hints.txAttr().size(msgQueue);
                hints.rxAttr().size(msgQueue);
            }
            hints.domainAttr().dataProgress(mode);
            List<Info> infos = provider.getInfo(node, "0", Fi.FI_SOURCE, hints);
            Info info = infos.get(0);
            fabric = provider.fabric(info.fabricAttr(), null);
            domain = fabric.domain(info, null);
            txCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), "tx");
            rxCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), "rx");
            av = domain.openAv(new AvAttr(), null);
            ep = RxmEndpoint.open(fabric, domain, info, 0, settings, "rxm");
            ep.bind(av, 0);
            ep.bind(txCq, Fi.FI_TRANSMIT);
            ep.bind(rxCq, Fi.FI_RECV);
            ep.enable();
        }

        long insert(byte[] name) {
            long[] fi = new long[1];
            assertEquals(1, av.insert(new byte[][] {name}, fi, 0, null));
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

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void eagerAndRendezvousMessagesBothWays(Progress mode) throws Exception {
        bothWays(mode, RxmSettings.defaults());
    }

    /** The same with rendezvous by write (the receiver offers its buffer, the sender writes). */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void rendezvousByWriteBothWays(Progress mode) throws Exception {
        bothWays(mode, RxmSettings.defaults().withRendezvousByWrite(true));
    }

    /**
     * With a SAR limit (libfabric's rxm sends segments over verbs; tcp's default has none):
     * 16385 and 65536 bytes go in segments of the eager limit — with remote CQ data, into a
     * posted receive, and tagged arriving before its receive — 1 MiB still by rendezvous.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void segmentedMessagesBothWays(Progress mode) throws Exception {
        bothWays(mode, RxmSettings.defaults().withSarLimit(128 << 10));
    }

    /**
     * Segments from a message of several iovs whose borders fall inside segments, and messages
     * of exactly the SAR limit (eight whole segments) in a row with one of a byte more (by
     * rendezvous) among them: each arrives whole, in the receive posted for it.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void segmentedMessagesFromIovsAndAtTheLimit(Progress mode) throws Exception {
        RxmSettings settings = RxmSettings.defaults().withSarLimit(128 << 10);
        try (Side a = new Side(mode, settings); Side b = new Side(mode, settings)) {
            long bAtA = a.insert(b.ep.getName());
            b.insert(a.ep.getName());
            ByteBuffer whole = pattern(35_000, 9);
            io.jofi.Msg m = new io.jofi.Msg(3).context("iovs").addr(bAtA)
                    .iov(0, whole.duplicate().position(0).limit(10_000).slice(), null)
                    .iov(1, whole.duplicate().position(10_000).limit(30_000).slice(), null)
                    .iov(2, whole.duplicate().position(30_000).limit(35_000).slice(), null).iovCount(3);
            ByteBuffer in = ByteBuffer.allocateDirect(35_000);
            assertEquals(0, b.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "r-iovs"));
            retry(a, b, () -> a.ep.sendMsg(m, 0));
            assertEquals("r-iovs", await(b.rxCq, a, b).context());
            assertEquals("iovs", await(a.txCq, a, b).context());
            assertEquals(whole, in, "a message of three iovs in three segments");
            int[] sizes = {128 << 10, 128 << 10, (128 << 10) + 1, 128 << 10};
            ByteBuffer[] ins = new ByteBuffer[sizes.length];
            for (int i = 0; i < sizes.length; i++) {
                ins[i] = ByteBuffer.allocateDirect(sizes[i]);
                assertEquals(0, b.ep.recv(ins[i], null, Fi.FI_ADDR_UNSPEC, "r" + i));
            }
            for (int i = 0; i < sizes.length; i++) {
                int k = i;
                retry(a, b, () -> a.ep.send(pattern(sizes[k], 20 + k), null, bAtA, "s" + k));
            }
            // matched in order (each buffer holds its message); the rendezvous one completes
            // when its data has been read, so possibly after the segmented one behind it
            java.util.Set<Object> received = new java.util.HashSet<>();
            for (int i = 0; i < sizes.length; i++) {
                received.add(await(b.rxCq, a, b).context());
                await(a.txCq, a, b);
            }
            assertEquals(java.util.Set.of("r0", "r1", "r2", "r3"), received);
            for (int i = 0; i < sizes.length; i++) {
                assertEquals(pattern(sizes[i], 20 + i), ins[i], "message " + i + " of " + sizes[i] + " bytes");
            }
        }
    }

    /**
     * rxm's credit flow control offered by both sides, four receive buffers a connection (a
     * grant every two): every size both ways (eager, segments, rendezvous), then 300 messages
     * each way posted back to back, half into posted receives, half unexpected — all arrive, in
     * order, the senders held back by credits (-EAGAIN) and going on as grants come.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void withCreditFlowControl(Progress mode) throws Exception {
        RxmSettings d = RxmSettings.defaults();
        RxmSettings settings = new RxmSettings(d.eagerLimit(), 4, d.transmitOps(), d.receiveQueueSize(),
                d.maxUnexpectedBytes(), d.maxUnexpectedMessages(), d.msgCqSize(), false, 128 << 10, true);
        bothWays(mode, settings);
        try (Side a = new Side(mode, settings); Side b = new Side(mode, settings)) {
            long bAtA = a.insert(b.ep.getName());
            long aAtB = b.insert(a.ep.getName());
            int n = 300;
            ByteBuffer[] inB = new ByteBuffer[n];
            ByteBuffer[] inA = new ByteBuffer[n];
            for (int i = 0; i < n / 2; i++) {
                inB[i] = ByteBuffer.allocateDirect(64);
                inA[i] = ByteBuffer.allocateDirect(64);
                assertEquals(0, b.ep.recv(inB[i], null, Fi.FI_ADDR_UNSPEC, "b" + i));
                assertEquals(0, a.ep.recv(inA[i], null, Fi.FI_ADDR_UNSPEC, "a" + i));
            }
            for (int i = 0; i < n; i++) {
                int k = i;
                retry(a, b, () -> a.ep.send(pattern(64, k), null, bAtA, "s" + k));
                retry(b, a, () -> b.ep.send(pattern(64, 1000 + k), null, aAtB, "t" + k));
            }
            for (int i = n / 2; i < n; i++) {
                inB[i] = ByteBuffer.allocateDirect(64);
                inA[i] = ByteBuffer.allocateDirect(64);
                int k = i;
                retry(b, a, () -> b.ep.recv(inB[k], null, Fi.FI_ADDR_UNSPEC, "b" + k));
                retry(a, b, () -> a.ep.recv(inA[k], null, Fi.FI_ADDR_UNSPEC, "a" + k));
            }
            for (int i = 0; i < n; i++) {
                assertEquals("b" + i, await(b.rxCq, a, b).context(), "b's receive " + i + ", in order");
                assertEquals("a" + i, await(a.rxCq, a, b).context(), "a's receive " + i + ", in order");
                await(a.txCq, a, b);
                await(b.txCq, a, b);
            }
            for (int i = 0; i < n; i++) {
                assertEquals(pattern(64, i), inB[i], "a's message " + i);
                assertEquals(pattern(64, 1000 + i), inA[i], "b's message " + i);
            }
            java.util.List<String> credits = io.jofi.provider.rxm.RxmTestAccess.creditsOf(a.ep);
            assertTrue(credits.size() >= 1 && credits.stream().allMatch(c -> c.startsWith("credits: peer")),
                    "enabled on a's connections: " + credits);
        }
    }

    /**
     * Credits and the unexpected limits together. b sends to a, whose application does not
     * receive yet: a's unexpected limit is two messages, and beyond it a withholds its grants, so
     * of b's 30 messages a takes what b's credits allowed (at most its four buffers and the one
     * credit assumed) and the rest wait at b. Meanwhile a sends 40 messages to b,
     * which needs b's grants: they come (b gets the one credit a grants to a peer without any).
     * Before, a left b's packets beyond the limit in their buffers, b's grants found none and
     * both waited for ever (a's send answered -EAGAIN until the deadline). Then a's receives
     * take b's messages in order.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void creditsAndTheUnexpectedLimits(Progress mode) throws Exception {
        RxmSettings d = RxmSettings.defaults();
        RxmSettings settings = new RxmSettings(d.eagerLimit(), 4, d.transmitOps(), d.receiveQueueSize(),
                d.maxUnexpectedBytes(), 2, d.msgCqSize(), false, d.eagerLimit(), true);
        try (Side a = new Side(mode, settings); Side b = new Side(mode, settings)) {
            long bAtA = a.insert(b.ep.getName());
            long aAtB = b.insert(a.ep.getName());
            int held = 30;
            for (int i = 0; i < held; i++) {
                int k = i;
                retry(b, a, () -> b.ep.send(pattern(64, 500 + k), null, aAtB, "h" + k));
            }
            // until a took what its limit allows (a loaded host may take longer than the half second
            // that follows), then half a second more of both sides' progress (AUTO: their threads), in
            // which a taking more than its limit and b's credits allow would show
            for (long end = System.nanoTime() + TIMEOUT_MS * 1_000_000L;
                    unexpectedHighWater(a) < 2 && System.nanoTime() - end < 0; ) {
                pump(a, b, 1);
            }
            for (long end = System.nanoTime() + 500_000_000L; System.nanoTime() - end < 0; ) {
                pump(a, b, 1);
            }
            long taken = unexpectedHighWater(a);
            assertTrue(taken >= 2 && taken <= 2 + 4 + 1, taken + " messages taken by a receiver at its limit of 2");
            int n = 40;
            ByteBuffer[] inB = new ByteBuffer[n];
            for (int i = 0; i < n; i++) {
                inB[i] = ByteBuffer.allocateDirect(64);
                assertEquals(0, b.ep.recv(inB[i], null, Fi.FI_ADDR_UNSPEC, "b" + i));
            }
            try {
                for (int i = 0; i < n; i++) {
                    int k = i;
                    retry(a, b, () -> a.ep.send(pattern(64, k), null, bAtA, "s" + k));
                }
                for (int i = 0; i < n; i++) {
                    assertEquals("b" + i, await(b.rxCq, a, b).context(), "b's receive " + i);
                    assertEquals(pattern(64, i), inB[i], "a's message " + i);
                }
            } catch (AssertionError e) {
                throw new AssertionError("a to b (a: " + io.jofi.provider.rxm.RxmTestAccess.creditsOf(a.ep)
                        + ", b: " + io.jofi.provider.rxm.RxmTestAccess.creditsOf(b.ep) + ")", e);
            }
            for (int i = 0; i < held; i++) {
                ByteBuffer in = ByteBuffer.allocateDirect(64);
                int k = i;
                retry(a, b, () -> a.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "a" + k));
                assertEquals("a" + i, await(a.rxCq, a, b).context(), "a's receive " + i + ", in order");
                assertEquals(pattern(64, 500 + i), in, "b's message " + i);
            }
        }
    }

    /**
     * Credits take every packet, so an unexpected rendezvous beyond the unexpected byte limit
     * cannot be left in its buffer: it is kept as its descriptor and read only once a receive
     * takes it, into a copy of that receive's size. b sends a, whose limit is 1 MiB and whose
     * application does not receive yet, three rendezvous messages of 4 MiB: a's unexpected
     * bytes stay within the limit and b's sends wait for a's receives. Before, a read each
     * into a copy of the size the request claimed (12 MiB held; a peer could claim 2 GiB a
     * request) and b's sends completed at once. Then a's receives — one of 1 MiB, truncating —
     * take them in order with the right bytes.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void creditsKeepALargeUnexpectedRendezvousAsItsDescriptor(Progress mode) throws Exception {
        RxmSettings d = RxmSettings.defaults();
        long limit = 1 << 20;
        RxmSettings settings = new RxmSettings(d.eagerLimit(), 4, d.transmitOps(), d.receiveQueueSize(), limit,
                d.maxUnexpectedMessages(), d.msgCqSize(), false, d.eagerLimit(), true);
        int size = 4 << 20;
        try (Side a = new Side(mode, settings); Side b = new Side(mode, settings)) {
            long aAtB = b.insert(a.ep.getName());
            ByteBuffer[] out = new ByteBuffer[3];
            for (int i = 0; i < out.length; i++) {
                out[i] = pattern(size, 70 + i);
                int k = i;
                retry(b, a, () -> b.ep.send(out[k], null, aAtB, "big" + k));
            }
            for (long end = System.nanoTime() + 500_000_000L; System.nanoTime() - end < 0; ) {
                pump(a, b, 1);
            }
            long held = unexpected(a, ": unexpected bytes high-water mark");
            assertTrue(held <= limit, held + " bytes held unexpected by a receiver with a limit of " + limit);
            assertEquals(3, unexpected(a, ": unexpected messages high-water mark"), "a holds the three messages");
            CqEntry[] none = new CqEntry[] {new CqEntry()};
            assertEquals(-Errno.EAGAIN, b.txCq.read(none, 1), "b's sends wait for a's receives");
            ByteBuffer[] in = {ByteBuffer.allocateDirect(size), ByteBuffer.allocateDirect(1 << 20),
                ByteBuffer.allocateDirect(size)};
            for (int i = 0; i < in.length; i++) {
                int k = i;
                retry(a, b, () -> a.ep.recv(in[k], null, Fi.FI_ADDR_UNSPEC, "in" + k));
            }
            assertEquals("in0", await(a.rxCq, a, b).context(), "a's first receive");
            assertEquals(pattern(size, 70), in[0], "b's first message");
            CqErrEntry err = awaitError(a.rxCq, a, b);
            assertEquals("in1", err.context(), "the 1 MiB receive");
            assertEquals(Errno.ETRUNC, err.err(), "truncated");
            ByteBuffer head = pattern(size, 71).limit(1 << 20);
            assertEquals(head, in[1].clear(), "its first MiB");
            assertEquals("in2", await(a.rxCq, a, b).context(), "a's third receive");
            assertEquals(pattern(size, 72), in[2], "b's third message");
            for (int i = 0; i < out.length; i++) {
                assertEquals("big" + i, await(b.txCq, a, b).context(), "b's send " + i + " completed");
            }
        }
    }

    /**
     * Every transmit of both sides taken by rendezvous sends to each other (three each, the
     * receives posted): each side's sends complete only on the other's read-done, and a read-done
     * needs a transmit — it takes one kept for answers (RxmTransmitPool). Before, both sides
     * waited for ever (MANUAL). And on a fresh pair in AUTO progress a rendezvous request that
     * arrived before the connection's connected event was read failed its receive with
     * ECONNRESET (two runs in three): it now waits for the event.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void rendezvousBothWaysWithEveryTransmitTaken(Progress mode) throws Exception {
        RxmSettings d = RxmSettings.defaults();
        RxmSettings settings = new RxmSettings(d.eagerLimit(), d.receiveBuffers(), 3, d.receiveQueueSize(),
                d.maxUnexpectedBytes(), d.maxUnexpectedMessages(), d.msgCqSize(), false, d.eagerLimit());
        int size = 65536;
        try (Side a = new Side(mode, settings); Side b = new Side(mode, settings)) {
            long bAtA = a.insert(b.ep.getName());
            long aAtB = b.insert(a.ep.getName());
            ByteBuffer[] inA = new ByteBuffer[3];
            ByteBuffer[] inB = new ByteBuffer[3];
            for (int i = 0; i < 3; i++) {
                inA[i] = ByteBuffer.allocateDirect(size);
                inB[i] = ByteBuffer.allocateDirect(size);
                assertEquals(0, a.ep.recv(inA[i], null, Fi.FI_ADDR_UNSPEC, "a" + i));
                assertEquals(0, b.ep.recv(inB[i], null, Fi.FI_ADDR_UNSPEC, "b" + i));
            }
            for (int i = 0; i < 3; i++) {
                int k = i;
                retry(a, b, () -> a.ep.send(pattern(size, k), null, bAtA, "s" + k));
                retry(b, a, () -> b.ep.send(pattern(size, 10 + k), null, aAtB, "t" + k));
            }
            for (int i = 0; i < 3; i++) {
                assertEquals("a" + i, await(a.rxCq, a, b).context(), "a's receive " + i);
                assertEquals("b" + i, await(b.rxCq, a, b).context(), "b's receive " + i);
            }
            for (int i = 0; i < 3; i++) {
                assertEquals(pattern(size, 10 + i), inA[i], "b's message " + i);
                assertEquals(pattern(size, i), inB[i], "a's message " + i);
                await(a.txCq, a, b);
                await(b.txCq, a, b);
            }
        }
    }

    static long unexpectedHighWater(Side s) {
        return unexpected(s, ": unexpected messages high-water mark");
    }

    private static long unexpected(Side s, String label) {
        io.jofi.spi.util.stats.CounterGroup g = s.ep.receiveCounters();
        return g.counters().stream().filter(c -> c.label().endsWith(label)).findFirst().orElseThrow().get();
    }

    private void bothWays(Progress mode, RxmSettings settings) throws Exception {
        try (Side a = new Side(mode, settings); Side b = new Side(mode, settings)) {
            long bAtA = a.insert(b.ep.getName());
            long aAtB = b.insert(a.ep.getName());
            for (int size : new int[] {0, 1, 64, 16384, 16385, 65536, 1 << 20}) {
                ByteBuffer out = pattern(size, size);
                ByteBuffer in = ByteBuffer.allocateDirect(Math.max(size, 1));
                assertEquals(0, b.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "r" + size));
                retry(a, b, () -> a.ep.sendData(out, null, 0x1234_5678_9abcL + size, bAtA, "s" + size));
                CqEntry sent = await(a.txCq, a, b);
                assertEquals("s" + size, sent.context());
                long[] from = new long[1];
                CqEntry got = awaitFrom(b.rxCq, from, a, b);
                assertEquals("r" + size, got.context());
                assertEquals(size, got.len());
                assertTrue((got.flags() & Fi.FI_REMOTE_CQ_DATA) != 0);
                assertEquals(0x1234_5678_9abcL + size, got.data());
                assertEquals(aAtB, from[0], "FI_SOURCE: the sender's fi_addr");
                in.limit(size);
                assertEquals(pattern(size, size), in, "payload of " + size);
                // and back, tagged, the message arriving before its receive (unexpected)
                ByteBuffer back = pattern(size, size + 1);
                retry(a, b, () -> b.ep.tsend(back, null, aAtB, 0x77, "t" + size));
                await(b.txCq, a, b);
                ByteBuffer in2 = ByteBuffer.allocate(Math.max(size, 1));
                Thread.sleep(2);
                pump(a, b, 20);
                assertEquals(0, a.ep.trecv(in2, null, Fi.FI_ADDR_UNSPEC, 0x77, 0, "tr" + size));
                CqEntry tgot = await(a.rxCq, a, b);
                assertEquals(size, tgot.len());
                assertEquals(0x77, tgot.tag());
                in2.limit(size);
                assertEquals(pattern(size, size + 1), in2, "tagged payload of " + size);
            }
        }
    }

    /**
     * Both sides send first, at once: two connection requests cross. rxm's rule settles it
     * (the side with the smaller listening address refuses the peer's request as "already",
     * the other drops its own and accepts), one connection carries both messages, in order.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void crossedConnectionRequestsGiveOneConnection(Progress mode) throws Exception {
        try (Side a = new Side(mode); Side b = new Side(mode)) {
            long bAtA = a.insert(b.ep.getName());
            long aAtB = b.insert(a.ep.getName());
            ByteBuffer inA = ByteBuffer.allocateDirect(64);
            ByteBuffer inB = ByteBuffer.allocateDirect(64);
            ByteBuffer inA2 = ByteBuffer.allocateDirect(64);
            ByteBuffer inB2 = ByteBuffer.allocateDirect(64);
            assertEquals(0, a.ep.recv(inA, null, Fi.FI_ADDR_UNSPEC, "ra1"));
            assertEquals(0, a.ep.recv(inA2, null, Fi.FI_ADDR_UNSPEC, "ra2"));
            assertEquals(0, b.ep.recv(inB, null, Fi.FI_ADDR_UNSPEC, "rb1"));
            assertEquals(0, b.ep.recv(inB2, null, Fi.FI_ADDR_UNSPEC, "rb2"));
            retry(a, b, () -> a.ep.send(pattern(64, 1), null, bAtA, "sa1"));
            retry(a, b, () -> b.ep.send(pattern(64, 2), null, aAtB, "sb1"));
            retry(a, b, () -> a.ep.send(pattern(64, 3), null, bAtA, "sa2"));
            retry(a, b, () -> b.ep.send(pattern(64, 4), null, aAtB, "sb2"));
            assertEquals("ra1", await(a.rxCq, a, b).context());
            assertEquals("ra2", await(a.rxCq, a, b).context());
            assertEquals("rb1", await(b.rxCq, a, b).context());
            assertEquals("rb2", await(b.rxCq, a, b).context());
            assertEquals(pattern(64, 2), inA, "b's first message");
            assertEquals(pattern(64, 4), inA2, "b's second message");
            assertEquals(pattern(64, 1), inB, "a's first message");
            assertEquals(pattern(64, 3), inB2, "a's second message");
            for (int i = 0; i < 2; i++) {
                await(a.txCq, a, b);
                await(b.txCq, a, b);
            }
        }
    }

    /**
     * FI_LOCAL_COMM: an endpoint sends to its own name — its connection request reaches its
     * own listener and is accepted by a connection of its own — eager and rendezvous, the
     * source being its own fi_addr.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void anEndpointSendsToItself(Progress mode) throws Exception {
        try (Side a = new Side(mode)) {
            long self = a.insert(a.ep.getName());
            for (int size : new int[] {8, 65536, 8}) {
                ByteBuffer in = ByteBuffer.allocateDirect(size);
                assertEquals(0, a.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "r" + size));
                retry(a, a, () -> a.ep.send(pattern(size, 3), null, self, "s" + size));
                long[] from = new long[1];
                CqEntry got = awaitFrom(a.rxCq, from, a, a);
                assertEquals("r" + size, got.context());
                assertEquals(self, from[0], "FI_SOURCE: its own fi_addr");
                in.limit(size);
                assertEquals(pattern(size, 3), in);
                assertEquals("s" + size, await(a.txCq, a, a).context());
            }
        }
    }

    /** Connects a to b with one message a sends and b receives; returns b's fi_addr at a. */
    static long connected(Side a, Side b) throws FabricException {
        long bInA = a.insert(b.ep.getName());
        b.insert(a.ep.getName());
        assertEquals(0, b.ep.recv(ByteBuffer.allocate(64), null, Fi.FI_ADDR_UNSPEC, "hello-rx"));
        retry(a, b, () -> a.ep.send(pattern(8, 1), null, bInA, "hello"));
        await(b.rxCq, a, b);
        await(a.txCq, a, b);
        return bInA;
    }

    static ByteBuffer pattern(int size, int seed) {
        ByteBuffer b = ByteBuffer.allocateDirect(Math.max(size, 1));
        for (int i = 0; i < size; i++) {
            b.put(i, (byte) (i * 31 + seed));
        }
        b.limit(size);
        return b;
    }

    static void retry(Side s, Side peer, IntSupplier post) {
        long deadline = System.currentTimeMillis() + TIMEOUT_MS;
        CqEntry[] e = {new CqEntry()};
        while (true) {
            int rc = post.getAsInt();
            if (rc == 0) {
                return;
            }
            assertEquals(-Errno.EAGAIN, rc, "post: " + Errno.strerror(-rc));
            if (System.currentTimeMillis() > deadline) {
                fail("post kept answering EAGAIN");
            }
            s.rxCq.read(e, 0); // drives progress on both sides (manual mode)
            peer.rxCq.read(e, 0);
            Thread.onSpinWait();
        }
    }

    static void pump(Side a, Side b, int rounds) {
        CqEntry[] e = {new CqEntry()};
        for (int i = 0; i < rounds; i++) {
            a.rxCq.read(e, 0);
            b.rxCq.read(e, 0);
            a.txCq.read(e, 0);
            b.txCq.read(e, 0);
        }
    }

    static CqEntry await(CompletionQueue cq, Side a, Side b) {
        return awaitFrom(cq, null, a, b);
    }

    /** The next error entry of {@code cq} (a successful completion first fails the test). */
    static CqErrEntry awaitError(CompletionQueue cq, Side a, Side b) {
        CqEntry[] buf = {new CqEntry()};
        CqEntry[] other = {new CqEntry()};
        long deadline = System.currentTimeMillis() + TIMEOUT_MS;
        while (true) {
            int rc = cq.read(buf, 1);
            if (rc == 1) {
                fail("a completion for " + buf[0].context() + " where an error entry was expected");
            }
            if (rc == -Errno.EAVAIL) {
                CqErrEntry err = new CqErrEntry();
                assertEquals(1, cq.readErr(err, 0), "readErr");
                return err;
            }
            a.rxCq.read(other, 0);
            b.rxCq.read(other, 0);
            if (System.currentTimeMillis() > deadline) {
                fail("no error entry within " + TIMEOUT_MS + " ms");
            }
            Thread.onSpinWait();
        }
    }

    static CqEntry awaitFrom(CompletionQueue cq, long[] from, Side a, Side b) {
        CqEntry[] buf = {new CqEntry()};
        CqEntry[] other = {new CqEntry()};
        long deadline = System.currentTimeMillis() + TIMEOUT_MS;
        while (true) {
            int rc = from == null ? cq.read(buf, 1) : cq.readFrom(buf, 1, from);
            if (rc == 1) {
                return buf[0];
            }
            if (rc == -Errno.EAVAIL) {
                CqErrEntry err = new CqErrEntry();
                cq.readErr(err, 0);
                fail("error completion " + Errno.strerror(err.err()) + " for " + err.context() + " (prov_errno "
                        + err.provErrno() + ", err_data " + (err.errData() == null ? "none"
                        : new String(err.errData(), 0, err.errDataSize(), java.nio.charset.StandardCharsets.UTF_8)) + ")");
            }
            // drive the other side too (manual progress)
            a.rxCq.read(other, 0);
            b.rxCq.read(other, 0);
            if (System.currentTimeMillis() > deadline) {
                fail("no completion within " + TIMEOUT_MS + " ms");
            }
            Thread.onSpinWait();
        }
    }
}
