package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.assertNothing;
import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static io.jofi.provider.tcp.TcpTestBed.awaitError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.EnumSource;
import java.util.stream.Stream;

/** send/recv/inject/senddata, completion levels, truncation, cancel, unexpected messages (R11–R13). */
@Timeout(60)
class TcpMessageTest {

    static Stream<Arguments> sizesAndModes() {
        Stream.Builder<Arguments> b = Stream.builder();
        for (Progress mode : new Progress[] {Progress.AUTO, Progress.MANUAL}) {
            // 128 and 129: the last size that leaves as one contiguous frame (header and a
            // copy of the payload, one write) and the first that is gathered from the caller's buffer
            for (int size : new int[] {0, 1, 128, 129, 4096, 1 << 20}) {
                b.add(Arguments.of(mode, size));
            }
        }
        return b.build();
    }

    private static ByteBuffer pattern(int size, long seed, boolean direct) {
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
        Random r = new Random(seed);
        for (int i = 0; i < size; i++) {
            b.put(i, (byte) r.nextInt());
        }
        return b;
    }

    private static void assertSameBytes(ByteBuffer expected, ByteBuffer actual, int offset, int len) {
        for (int i = 0; i < len; i++) {
            if (expected.get(expected.position() + i) != actual.get(offset + i)) {
                throw new AssertionError("byte " + i + " differs");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("sizesAndModes")
    void sendAndReceiveDeliverEveryByte(Progress mode, int size) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode).connect(null, null)) {
            ByteBuffer rx = ByteBuffer.allocateDirect(size + 16);
            rx.position(8); // the payload lands at the posted position
            assertEquals(0, bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx"));
            ByteBuffer tx = pattern(size, size, size % 2 == 0);
            assertEquals(0, bed.client.send(tx, null, Fi.FI_ADDR_UNSPEC, "tx"));
            CqEntry r = awaitCompletion(bed.serverCq);
            assertEquals("rx", r.context());
            assertEquals(size, r.len());
            assertEquals(Fi.FI_RECV | Fi.FI_MSG, r.flags());
            assertSame(rx, r.buf());
            assertEquals(8, r.bufOffset());
            assertSameBytes(tx, rx, 8, size);
            assertEquals(8, rx.position(), "the caller's position is never changed");
            CqEntry s = awaitCompletion(bed.clientCq);
            assertEquals("tx", s.context());
            assertEquals(Fi.FI_SEND | Fi.FI_MSG, s.flags());
            assertEquals(0, tx.position());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void injectNeedsNoCompletionAndFreesTheBufferAtOnce(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode).connect(null, null)) {
            ByteBuffer rx = ByteBuffer.allocate(128);
            bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx");
            ByteBuffer tx = pattern(100, 7, false);
            ByteBuffer expected = pattern(100, 7, false);
            assertEquals(0, bed.client.inject(tx, Fi.FI_ADDR_UNSPEC));
            for (int i = 0; i < 100; i++) {
                tx.put(i, (byte) 0); // reusing the buffer must not change what was injected
            }
            CqEntry r = awaitCompletion(bed.serverCq);
            assertEquals(100, r.len());
            assertSameBytes(expected, rx, 0, 100);
            assertNothing(bed.clientCq, 50);
            assertEquals(-Errno.EMSGSIZE, bed.client.inject(ByteBuffer.allocate(129), Fi.FI_ADDR_UNSPEC),
                    "above inject_size: -EMSGSIZE, as on every provider (docs/ERRORS.md)");
        }
    }

    @Test
    void sendDataCarriesRemoteCqData() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null)) {
            ByteBuffer rx = ByteBuffer.allocate(64);
            bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx");
            bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx2");
            assertEquals(0, bed.client.sendData(pattern(17, 1, true), null, 0xa1b2c3d4e5f60718L, Fi.FI_ADDR_UNSPEC, "tx"));
            CqEntry r = awaitCompletion(bed.serverCq);
            assertEquals(17, r.len());
            assertEquals(0xa1b2c3d4e5f60718L, r.data());
            assertEquals(Fi.FI_RECV | Fi.FI_MSG | Fi.FI_REMOTE_CQ_DATA, r.flags());
            assertEquals(0, bed.client.injectData(pattern(3, 1, true), 42L, Fi.FI_ADDR_UNSPEC));
            r = awaitCompletion(bed.serverCq);
            assertEquals("rx2", r.context());
            assertEquals(42L, r.data());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void deliveryCompleteCompletesOnTheAck(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode).connect(null, null)) {
            Msg msg = new Msg().buffer(pattern(4, 3, true), null).context("mc");
            assertEquals(0, bed.client.sendMsg(msg, Fi.FI_MATCH_COMPLETE | Fi.FI_COMPLETION));
            // FI_MATCH_COMPLETE (JOFI flag bit 1 between JOFI peers), no receive posted: the
            // message waits unexpected and is not acked yet
            assertNothing(bed.clientCq, 100);
            // FI_DELIVERY_COMPLETE behind it: buffered at the target is delivered (R11), but
            // acks leave in arrival order, so it waits for the first one's match
            msg.context("dc");
            assertEquals(0, bed.client.sendMsg(msg, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION));
            assertNothing(bed.clientCq, 100);
            ByteBuffer rx = ByteBuffer.allocate(8);
            bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "first");
            // the receive takes it: the acks follow, both sends complete in order (R11)
            assertEquals("first", awaitCompletion(bed.serverCq).context());
            assertEquals("mc", awaitCompletion(bed.clientCq).context());
            assertEquals("dc", awaitCompletion(bed.clientCq).context());
            bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "first-b");
            assertEquals("first-b", awaitCompletion(bed.serverCq).context());
            // FI_DELIVERY_COMPLETE alone: buffered unexpected at the target is enough (R11)
            msg.context("dc2");
            assertEquals(0, bed.client.sendMsg(msg, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION));
            assertEquals("dc2", awaitCompletion(bed.clientCq).context());
            bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "late");
            assertEquals("late", awaitCompletion(bed.serverCq).context());
            // with a receive posted first the ack comes after placing
            bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "second");
            msg.context("tc");
            assertEquals(0, bed.client.sendMsg(msg, Fi.FI_TRANSMIT_COMPLETE | Fi.FI_COMPLETION));
            assertEquals("tc", awaitCompletion(bed.clientCq).context());
            assertEquals("second", awaitCompletion(bed.serverCq).context());
        }
    }

    @Test
    void aMessageLargerThanTheBufferIsTruncated() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null)) {
            ByteBuffer rx = ByteBuffer.allocate(10);
            bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "small");
            ByteBuffer next = ByteBuffer.allocate(10);
            bed.server.recv(next, null, Fi.FI_ADDR_UNSPEC, "next");
            ByteBuffer tx = pattern(25, 9, false);
            bed.client.send(tx, null, Fi.FI_ADDR_UNSPEC, "big");
            bed.client.send(pattern(5, 10, false), null, Fi.FI_ADDR_UNSPEC, "after");
            CqErrEntry e = awaitError(bed.serverCq);
            assertEquals(Errno.ETRUNC, e.err());
            assertEquals("small", e.context());
            assertEquals(10, e.len());
            assertEquals(15, e.olen());
            assertSameBytes(tx, rx, 0, 10);
            // the stream is still in step: the next message lands whole
            CqEntry r = awaitCompletion(bed.serverCq);
            assertEquals("next", r.context());
            assertEquals(5, r.len());
            assertSameBytes(pattern(5, 10, false), next, 0, 5);
        }
    }

    @Test
    void cancelOfAPendingReceiveCompletesItWithECanceled() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null)) {
            ByteBuffer rx = ByteBuffer.allocate(10);
            bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "a");
            bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "b");
            assertEquals(0, bed.server.cancel("a"));
            CqErrEntry e = awaitError(bed.serverCq);
            assertEquals(Errno.ECANCELED, e.err());
            assertEquals("a", e.context());
            assertEquals(-Errno.ENOENT, bed.server.cancel("a"));
            assertEquals(-Errno.ENOENT, bed.server.cancel("never posted"));
            bed.client.send(pattern(3, 1, false), null, Fi.FI_ADDR_UNSPEC, "tx");
            assertEquals("b", awaitCompletion(bed.serverCq).context());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void unexpectedMessagesAreDeliveredInOrderOnceReceivesArePosted(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode).connect(null, null)) {
            for (int i = 0; i < 5; i++) {
                ByteBuffer b = ByteBuffer.allocate(4).putInt(0, i);
                bed.client.sendData(b, null, i, Fi.FI_ADDR_UNSPEC, "tx" + i);
            }
            for (int i = 0; i < 5; i++) {
                awaitCompletion(bed.clientCq);
            }
            assertNothing(bed.serverCq, 50); // drives progress: the messages are buffered
            ByteBuffer rx = ByteBuffer.allocate(4);
            for (int i = 0; i < 5; i++) {
                bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx" + i);
                CqEntry r = awaitCompletion(bed.serverCq);
                assertEquals("rx" + i, r.context());
                assertEquals(i, r.data());
                assertEquals(i, rx.getInt(0));
            }
        }
    }

    /**
     * Also the read buffer's case: the paused message and those behind it arrived in one read,
     * so no socket event will come for them — posting a receive must consume them.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aFullUnexpectedBufferStopsReadingUntilAReceiveIsPosted(Progress mode) throws Exception {
        String prop = "jofi.tcp.unexpectedBytes";
        System.setProperty(prop, "1000");
        try (TcpTestBed bed = new TcpTestBed(mode).connect(null, null)) {
            System.clearProperty(prop);
            // 5 x 400 bytes: two fit the 1000-byte limit, then the connection stops reading
            for (int i = 0; i < 5; i++) {
                ByteBuffer b = pattern(400, i, true);
                assertEquals(0, bed.client.send(b, null, Fi.FI_ADDR_UNSPEC, "tx" + i));
            }
            for (int i = 0; i < 5; i++) {
                awaitCompletion(bed.clientCq); // written to the socket (kernel buffers hold the rest)
            }
            ByteBuffer rx = ByteBuffer.allocate(400);
            for (int i = 0; i < 5; i++) {
                bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx" + i);
                CqEntry r = awaitCompletion(bed.serverCq);
                assertEquals("rx" + i, r.context());
                assertEquals(400, r.len());
                assertSameBytes(pattern(400, i, true), rx, 0, 400);
            }
        } finally {
            System.clearProperty(prop);
        }
    }

    @Test
    void sendMsgAndRecvMsgGatherAndScatter() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.MANUAL).connect(null, null)) {
            ByteBuffer a = ByteBuffer.allocate(3);
            ByteBuffer b = ByteBuffer.allocateDirect(5);
            Msg rmsg = new Msg().iov(0, a, null).iov(1, b, null).iovCount(2).context("rmsg");
            assertEquals(0, bed.server.recvMsg(rmsg, Fi.FI_COMPLETION));
            ByteBuffer x = ByteBuffer.wrap(new byte[] {1, 2});
            ByteBuffer y = ByteBuffer.wrap(new byte[] {3, 4, 5, 6, 7, 8});
            Msg smsg = new Msg().iov(0, x, null).iov(1, y, null).iovCount(2).context("smsg");
            assertEquals(0, bed.client.sendMsg(smsg, Fi.FI_COMPLETION));
            CqEntry r = awaitCompletion(bed.serverCq);
            assertEquals(8, r.len());
            assertEquals(1, a.get(0));
            assertEquals(3, a.get(2));
            assertEquals(4, b.get(0));
            assertEquals(8, b.get(4));
            assertEquals("smsg", awaitCompletion(bed.clientCq).context());
        }
    }

    @Test
    void concurrentSendersOnOneEndpointLoseNothing() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null)) {
            int perThread = 500;
            ByteBuffer[] rx = new ByteBuffer[2 * perThread];
            for (int i = 0; i < rx.length; i++) {
                rx[i] = ByteBuffer.allocate(8);
                assertEquals(0, bed.server.recv(rx[i], null, Fi.FI_ADDR_UNSPEC, i));
            }
            Thread[] senders = new Thread[2];
            for (int t = 0; t < 2; t++) {
                final int id = t;
                senders[t] = new Thread(() -> {
                    for (int i = 0; i < perThread; i++) {
                        ByteBuffer b = ByteBuffer.allocate(8).putLong(0, ((long) id << 32) | i);
                        int rc;
                        while ((rc = bed.client.send(b, null, Fi.FI_ADDR_UNSPEC, null)) == -Errno.EAGAIN) {
                            Thread.onSpinWait();
                        }
                        assertEquals(0, rc);
                    }
                });
                senders[t].start();
            }
            java.util.Set<Long> seen = new java.util.HashSet<>();
            for (int i = 0; i < 2 * perThread; i++) {
                CqEntry r = awaitCompletion(bed.serverCq);
                seen.add(rx[(Integer) r.context()].getLong(0));
            }
            for (Thread t : senders) {
                t.join(TcpTestBed.TIMEOUT_MS);
            }
            assertEquals(2 * perThread, seen.size(), "every message arrived once, none garbled");
            for (int i = 0; i < 2 * perThread; i++) {
                awaitCompletion(bed.clientCq);
            }
        }
    }

    @Test
    void countersBoundToTheEndpointCountCompletionsAndErrors() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.MANUAL)) {
            io.jofi.Counter sent = bed.domain.openCounter(new io.jofi.CounterAttr(), null);
            io.jofi.Counter received = bed.domain.openCounter(new io.jofi.CounterAttr(), null);
            try {
                bed.client = bed.domain.endpoint(bed.info, "client");
                bed.client.bind(bed.clientEq, 0);
                bed.client.bind(bed.clientCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
                bed.client.bind(sent, Fi.FI_SEND);
                bed.client.enable();
                bed.client.connect(bed.pep.getName(), null);
                io.jofi.EqEntry req = TcpTestBed.awaitEvent(bed.pepEq, Fi.FI_CONNREQ);
                bed.server = bed.domain.endpoint(req.info(), "server");
                bed.server.bind(bed.serverEq, 0);
                bed.server.bind(bed.serverCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
                bed.server.bind(received, Fi.FI_RECV);
                bed.server.enable();
                bed.server.accept(null);
                TcpTestBed.awaitEvent(bed.serverEq, Fi.FI_CONNECTED);
                TcpTestBed.awaitEvent(bed.clientEq, Fi.FI_CONNECTED);
                ByteBuffer rx = ByteBuffer.allocate(2);
                bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "ok");
                bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "trunc");
                bed.client.send(ByteBuffer.allocate(2), null, Fi.FI_ADDR_UNSPEC, "a");
                bed.client.send(ByteBuffer.allocate(5), null, Fi.FI_ADDR_UNSPEC, "b");
                awaitCompletion(bed.serverCq);
                awaitError(bed.serverCq);
                awaitCompletion(bed.clientCq);
                awaitCompletion(bed.clientCq);
                assertEquals(2, sent.read());
                assertEquals(1, received.read());
                assertEquals(1, received.readErr());
            } finally {
                bed.client.close();
                bed.server.close();
                bed.client = null;
                bed.server = null;
                sent.close();
                received.close();
            }
        }
    }

    /** A receive posted while a large unexpected message is being buffered gets that message. */
    @Test
    void aReceivePostedWhileAMessageIsBeingBufferedTakesIt() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.MANUAL).connect(null, null)) {
            int size = 4 << 20; // larger than the socket buffers: buffering takes several passes
            ByteBuffer tx = pattern(size, 5, true);
            assertEquals(0, bed.client.send(tx, null, Fi.FI_ADDR_UNSPEC, "tx"));
            CqEntry[] one = {new CqEntry()};
            // drive until some of it was read into the unexpected buffer, then post the receive
            long deadline = System.currentTimeMillis() + TcpTestBed.TIMEOUT_MS;
            TcpEndpoint server = (TcpEndpoint) bed.server;
            while (!server.isBuffering() && System.currentTimeMillis() < deadline) {
                bed.serverCq.read(one, 1);
            }
            assertTrue(server.isBuffering(), "the message is being buffered");
            ByteBuffer rx = ByteBuffer.allocateDirect(size);
            assertEquals(0, bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "rx"));
            CqEntry r = awaitCompletion(bed.serverCq);
            assertEquals("rx", r.context());
            assertEquals(size, r.len());
            assertSameBytes(tx, rx, 0, size);
            assertEquals("tx", awaitCompletion(bed.clientCq).context());
        }
    }

    @Test
    void operationsTheCapsDoNotCoverAreNotImplemented() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.AUTO).connect(null, null)) {
            ByteBuffer b = ByteBuffer.allocate(8);
            assertEquals(-Errno.ENOSYS, bed.client.tsend(b, null, 0, 1, null));
            assertEquals(-Errno.ENOSYS, bed.client.write(b, null, 0, 0, 0, null));
            assertEquals(-Errno.ENOSYS, bed.client.atomic(1, 0, 0, 0, Fi.FI_SUM, null));
            // the bed asked for FI_MSG only: the endpoint's info does not carry the other caps
            assertTrue((bed.info.caps() & (Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_ATOMIC)) == 0, "not asked for");
        }
    }
}
