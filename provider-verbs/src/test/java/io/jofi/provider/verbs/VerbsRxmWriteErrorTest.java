package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.Progress;
import io.jofi.ProviderState;
import io.jofi.provider.rxm.RxmConnectData;
import io.jofi.provider.rxm.RxmEndpoint;
import io.jofi.provider.rxm.RxmSettings;
import io.jofi.provider.rxm.RxmPacketHeader;
import io.jofi.provider.rxm.RxmWireDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Rendezvous by write over verbs when the device refuses a write: a peer (a verbs MSG endpoint
 * playing rxm by hand) offers four pieces under a key it never registered. The first write
 * completes with a remote access error, the queue pair goes to the error state and the three
 * other writes flush. The send must fail once, and the application's next send, to a healthy
 * peer (taking the transmit the failed one gave back), must complete. On rxe the peer's
 * disconnect reaches rxm before the first write's error, and the end drains the flushes while
 * the transmit is still taken, so this passed before {@code RxmRendezvousWriter.failed} kept
 * the transmit until its last write came back too: it pins the behaviour on a real device.
 */
@Timeout(120)
class VerbsRxmWriteErrorTest {
    private static final long WAIT_NANOS = 30_000_000_000L;
    private static final int SIZE = 1 << 20;
    private static final int PIECES = 4;
    private static final CqEntry[] NONE = new CqEntry[0];

    private final List<AutoCloseable> opened = new ArrayList<>();

    @Test
    void aRefusedWriteFailsItsSendOnlyAndOnce() throws Exception {
        VerbsProvider provider = new VerbsProvider();
        assumeTrue(provider.state() == ProviderState.AVAILABLE, "verbs unavailable: " + provider.unavailableReason());
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_RMA);
        hints.epAttr().type(EpType.MSG);
        hints.domainAttr().mrMode(Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_ALLOCATED | Fi.FI_MR_PROV_KEY);
        hints.domainAttr().dataProgress(Progress.MANUAL);
        String host = System.getProperty("jofi.verbs.interop.host", "10.0.2.15");
        Info info = provider.getInfo(host, "0", Fi.FI_SOURCE, hints).get(0);
        Fabric fabric = open(provider.fabric(info.fabricAttr(), null));
        Domain domain = open(fabric.domain(info, null));
        CompletionQueue txCq = open(domain.openCq(new CqAttr().format(CqFormat.TAGGED), "tx"));
        CompletionQueue rxCq = open(domain.openCq(new CqAttr().format(CqFormat.TAGGED), "rx"));
        AddressVector av = open(domain.openAv(new AvAttr(), null));
        RxmEndpoint rxm = open(RxmEndpoint.open(fabric, domain, info, 0,
                overVerbs(provider.queueSize()).withRendezvousByWrite(true), "rxm"));
        rxm.bind(av, 0);
        rxm.bind(txCq, Fi.FI_TRANSMIT);
        rxm.bind(rxCq, Fi.FI_RECV);
        rxm.enable();
        try {
            // the peers in a domain of their own, as in another process: only the rxm
            // endpoint's own reads poll its completions
            Fabric peerFabric = open(provider.fabric(info.fabricAttr(), null));
            Domain peerDomain = open(peerFabric.domain(info, null));
            FakePeer healthy = new FakePeer(peerFabric, peerDomain, info, txCq);
            FakePeer refusing = new FakePeer(peerFabric, peerDomain, info, txCq);
            long toHealthy = healthy.connect(rxm, av, "hello healthy");
            long toRefusing = refusing.connect(rxm, av, "hello refusing");

            assertEquals(0, rxm.send(ByteBuffer.allocateDirect(SIZE), null, toRefusing, "big"));
            RxmPacketHeader request = refusing.next();
            assertEquals(RxmWireDescriptor.TYPE_RNDV_REQUEST, request.type, "the rendezvous request");
            refusing.offerUnknownKey(request.msgId);

            CqErrEntry err = awaitError(txCq, healthy, refusing);
            assertEquals("big", err.context(), Errno.strerror(err.err()));
            // at once, before the passes that read the flushed writes
            assertEquals(0, rxm.send(ByteBuffer.allocateDirect(64), null, toHealthy, "after"));
            assertEquals("after", await(txCq, healthy, refusing).context(), "the send to the healthy peer");
            assertEquals(RxmWireDescriptor.TYPE_EAGER, healthy.next().type, "it arrived");
            CqEntry[] one = {new CqEntry()};
            for (int i = 0; i < 50; i++) {
                assertEquals(-Errno.EAGAIN, txCq.read(one, 1), "nothing more: \"big\" failed once");
                Thread.sleep(2);
            }
        } finally {
            for (int i = opened.size() - 1; i >= 0; i--) {
                opened.get(i).close();
            }
        }
    }

    private <T extends AutoCloseable> T open(T fid) {
        opened.add(fid);
        return fid;
    }

    /** The next completion of {@code cq}, failing on an error entry; both peers driven. */
    private static CqEntry await(CompletionQueue cq, FakePeer p, FakePeer q) {
        CqEntry[] one = {new CqEntry()};
        long end = System.nanoTime() + WAIT_NANOS;
        while (true) {
            int rc = cq.read(one, 1);
            if (rc == 1) {
                return one[0];
            }
            if (rc == -Errno.EAVAIL) {
                CqErrEntry err = new CqErrEntry();
                cq.readErr(err, 0);
                throw new AssertionError(err.context() + " failed: " + Errno.strerror(err.err()));
            }
            p.drive();
            q.drive();
            assertTrue(System.nanoTime() - end < 0, "no completion");
        }
    }

    /** The next error entry of {@code cq} (a completion first fails); both peers driven. */
    private static CqErrEntry awaitError(CompletionQueue cq, FakePeer p, FakePeer q) {
        CqEntry[] one = {new CqEntry()};
        long end = System.nanoTime() + WAIT_NANOS;
        while (true) {
            int rc = cq.read(one, 1);
            assertTrue(rc != 1, () -> "a completion for " + one[0].context() + " where an error was expected");
            if (rc == -Errno.EAVAIL) {
                CqErrEntry err = new CqErrEntry();
                assertEquals(1, cq.readErr(err, 0));
                return err;
            }
            p.drive();
            q.drive();
            assertTrue(System.nanoTime() - end < 0, "no error entry");
        }
    }

    /**
     * A verbs MSG endpoint that accepts the rxm endpoint's connection as an rxm peer would
     * (flow control off), keeps packet buffers posted and reads and writes rxm packets by hand.
     */
    private final class FakePeer {
        final EventQueue eq;
        final CompletionQueue cq;
        final PassiveEndpoint pep;
        final CompletionQueue rxmTxCq;
        final RxmPacketHeader header = new RxmPacketHeader();
        ByteBuffer[] packets;
        Endpoint ep;
        int indexAtRxm;

        FakePeer(Fabric fabric, Domain domain, Info info, CompletionQueue rxmTxCq) throws FabricException {
            this.rxmTxCq = rxmTxCq;
            eq = open(fabric.openEq(new EqAttr(), "fake-eq"));
            cq = open(domain.openCq(new CqAttr().format(CqFormat.DATA), "fake-cq"));
            pep = open(fabric.passiveEndpoint(info, "fake-pep"));
            pep.bind(eq, 0);
            pep.listen();
            this.domain = domain;
        }

        private final Domain domain;

        /** The rxm endpoint sends {@code hello} to us: we accept its connection and take the packet. */
        long connect(RxmEndpoint rxm, AddressVector av, String hello) throws Exception {
            long[] addr = {Fi.FI_ADDR_NOTAVAIL};
            assertEquals(1, av.insert(new byte[][] {pep.getName()}, addr, 0, null));
            assertEquals(0, rxm.send(ByteBuffer.allocateDirect(8), null, addr[0], hello));
            EqEntry ev = event(Fi.FI_CONNREQ);
            RxmConnectData request = new RxmConnectData().decodeConnect(ev.payload(), ev.payloadLength(),
                    RxmWireDescriptor.DEFAULT_EAGER_LIMIT);
            assertNull(request.problem, "rxm's connect data");
            indexAtRxm = RxmConnectData.peerIndex(request.connId);
            ep = open(domain.endpoint(ev.info(), "fake"));
            ep.bind(eq, 0);
            ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            ep.enable();
            packets = new ByteBuffer[16];
            for (int i = 0; i < packets.length; i++) {
                packets[i] = ByteBuffer.allocateDirect(RxmWireDescriptor.HEADER_LENGTH + (int) request.eagerLimit)
                        .order(ByteOrder.LITTLE_ENDIAN);
                assertEquals(0, ep.recv(packets[i], null, Fi.FI_ADDR_UNSPEC, i));
            }
            RxmConnectData answer = new RxmConnectData();
            answer.connId = RxmConnectData.connId(ProcessHandle.current().pid(), 7);
            answer.rxSize = packets.length;
            answer.flowCtrl = RxmWireDescriptor.FLOW_CTRL_OFF;
            answer.eagerLimit = request.eagerLimit;
            ep.accept(answer.encodeAccept());
            event(Fi.FI_CONNECTED);
            assertEquals(RxmWireDescriptor.TYPE_EAGER, next().type, hello);
            CqEntry done = awaitRxm();
            assertEquals(hello, done.context());
            return addr[0];
        }

        private CqEntry awaitRxm() {
            CqEntry[] one = {new CqEntry()};
            long end = System.nanoTime() + WAIT_NANOS;
            while (rxmTxCq.read(one, 1) != 1) {
                drive();
                assertTrue(System.nanoTime() - end < 0, "the rxm side completed nothing");
            }
            return one[0];
        }

        private EqEntry event(int expected) {
            EqEntry ev = new EqEntry();
            long end = System.nanoTime() + WAIT_NANOS;
            while (eq.read(ev, 0) != 1) {
                rxmTxCq.read(NONE, 0);
                assertTrue(System.nanoTime() - end < 0, "no event " + expected);
            }
            assertEquals(expected, ev.event());
            return ev;
        }

        /** The next packet's header; its buffer posted again. */
        RxmPacketHeader next() throws FabricException {
            CqEntry[] one = {new CqEntry()};
            long end = System.nanoTime() + WAIT_NANOS;
            while (true) {
                int rc = cq.read(one, 1);
                if (rc == 1 && (one[0].flags() & Fi.FI_RECV) != 0) {
                    int i = (Integer) one[0].context();
                    header.read(packets[i], 0);
                    assertEquals(0, ep.recv(packets[i].clear(), null, Fi.FI_ADDR_UNSPEC, i));
                    return header;
                }
                assertTrue(rc == 1 || rc == -Errno.EAGAIN, "the fake peer's CQ: " + rc);
                rxmTxCq.read(NONE, 0);
                assertTrue(System.nanoTime() - end < 0, "no packet arrived");
            }
        }

        /** A write offer ({@code rndv_wr_data}) for {@code msgId}: {@link #PIECES} pieces under a made-up key. */
        void offerUnknownKey(long msgId) {
            RxmPacketHeader h = new RxmPacketHeader();
            h.type = RxmWireDescriptor.TYPE_RNDV_WRITE_DATA;
            h.op = RxmWireDescriptor.OP_MSG;
            h.connId = indexAtRxm;
            h.msgId = msgId;
            ByteBuffer b = ByteBuffer.allocateDirect(RxmWireDescriptor.HEADER_LENGTH + RxmWireDescriptor.RNDV_LENGTH)
                    .order(ByteOrder.LITTLE_ENDIAN);
            h.write(b, 0);
            for (int i = 0; i < PIECES; i++) {
                RxmPacketHeader.writeRendezvousIov(b, RxmWireDescriptor.HEADER_LENGTH, i, 0x10_0000L * (i + 1),
                        SIZE / PIECES, 0x7777);
            }
            RxmPacketHeader.writeRendezvousCount(b, RxmWireDescriptor.HEADER_LENGTH, PIECES);
            long end = System.nanoTime() + WAIT_NANOS;
            int rc;
            while ((rc = ep.send(b, null, 0, "offer")) == -Errno.EAGAIN) {
                drive();
                assertTrue(System.nanoTime() - end < 0, "the offer was not taken");
            }
            assertEquals(0, rc, "the offer's send");
        }

        /** One pass of ours: the CQ and EQ read (what comes is not the point; errors once we broke the connection). */
        void drive() {
            CqEntry[] one = {new CqEntry()};
            if (cq.read(one, 1) == -Errno.EAVAIL) {
                cq.readErr(new CqErrEntry(), 0);
            }
            eq.read(new EqEntry(), 0);
        }
    }

    /** The sizes the ofi_rxm provider gives RDM endpoints over verbs MSG endpoints of this queue depth. */
    private static RxmSettings overVerbs(int depth) {
        RxmSettings d = RxmSettings.defaults();
        return new RxmSettings(d.eagerLimit(), Math.max(d.receiveBuffers(), depth / 2), depth, depth,
                d.maxUnexpectedBytes(), d.maxUnexpectedMessages(), d.msgCqSize(), d.rendezvousByWrite(),
                8L * d.eagerLimit(), true);
    }
}
