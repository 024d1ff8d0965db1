package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.provider.shm.ring.RingDescriptor;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The compact header of single-fragment messages nobody answers
 * ({@link ShmRecordDescriptor#COMPACT}): what a message occupies in the receiver's ring (a 64-byte
 * message 104 bytes with the ring's own header, where the full header made it 152), that the tag,
 * the remote CQ data and the payload arrive in every combination, that messages asking for an
 * acknowledgement keep the full header (the token), and that a compact record with a flag it may
 * not carry fails its sender ({@code EPROTO}).
 */
@Timeout(60)
class ShmCompactRecordTest {
    private Path dir;
    private ShmTestBed rx;
    private ShmTestBed tx;
    private long rxAddr;

    @BeforeEach
    void open() throws Exception {
        dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmcompact-");
        rx = new ShmTestBed(dir, Progress.MANUAL);
        tx = new ShmTestBed(dir, Progress.MANUAL);
        rxAddr = tx.insert(rx.ep.getName());
    }

    @AfterEach
    void close() throws Exception {
        tx.close();
        rx.close();
        ShmCrossProcessTest.deleteTree(dir);
    }

    private RingLink rxRing() {
        return ShmTestHooks.own(rx.ep).link();
    }

    /** Bytes the receiver's ring took for one message sent by {@code post}, after it arrived. */
    private long ringBytesOf(java.util.function.IntSupplier post, ByteBuffer in, boolean tagged) {
        if (tagged) {
            rx.post(() -> rx.ep.trecv(in, null, Fi.FI_ADDR_UNSPEC, 0, -1L, "r"), "trecv");
        } else {
            rx.post(() -> rx.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "r"), "recv");
        }
        long before = rxRing().claimedTail();
        tx.post(post, "send");
        tx.completion(tx.txCq, "the send");
        long after = rxRing().claimedTail();
        lastReceived = rx.completion(rx.rxCq, "the receive");
        return after - before;
    }

    private CqEntry lastReceived;

    @Test
    void aSmallMessageTakesTheCompactHeaderAndArrivesWhole() {
        ByteBuffer in = ByteBuffer.allocateDirect(64);
        long used = ringBytesOf(() -> tx.ep.send(ShmCrossProcessTest.pattern(64, 5), null, rxAddr, "s"), in, false);
        assertEquals(RingDescriptor.HEADER_LENGTH + ShmRecordDescriptor.COMPACT_HEADER + 64, used,
                "ring header + compact header + payload");
        assertEquals(64, lastReceived.len());
        for (int i = 0; i < 64; i++) {
            assertEquals((byte) (5 + i), in.get(i), "byte " + i);
        }
    }

    @Test
    void tagAndRemoteCqDataTravelInTheCompactHeader() {
        long[][] cases = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
        for (long[] c : cases) {
            boolean tagged = c[0] == 1;
            boolean withData = c[1] == 1;
            long tag = 0x1234_5678_9ABC_DEF0L;
            long data = 0x0FED_CBA9_8765_4321L;
            ByteBuffer in = ByteBuffer.allocateDirect(64);
            io.jofi.TaggedMsg m = new io.jofi.TaggedMsg().buffer(ShmCrossProcessTest.pattern(24, 7), null)
                    .addr(rxAddr).tag(tag).data(data).context("s");
            io.jofi.Msg plain = new io.jofi.Msg().buffer(ShmCrossProcessTest.pattern(24, 7), null)
                    .addr(rxAddr).data(data).context("s");
            long flags = withData ? Fi.FI_REMOTE_CQ_DATA : 0;
            long used = ringBytesOf(() -> tagged ? tx.ep.tsendMsg(m, flags) : tx.ep.sendMsg(plain, flags), in, tagged);
            String what = (tagged ? "tagged" : "untagged") + (withData ? " with data" : "");
            assertEquals(RingDescriptor.alignedLength(RingDescriptor.HEADER_LENGTH + ShmRecordDescriptor.COMPACT_HEADER
                    + (tagged ? 8 : 0) + (withData ? 8 : 0) + 24), used, what + ": ring bytes");
            assertEquals(24, lastReceived.len(), what);
            assertEquals((byte) 7, in.get(0), what);
            assertEquals((byte) (7 + 23), in.get(23), what);
            if (tagged) {
                assertEquals(tag, lastReceived.tag(), what + ": tag");
            }
            if (withData) {
                assertEquals(data, lastReceived.data(), what + ": data");
                assertTrue((lastReceived.flags() & Fi.FI_REMOTE_CQ_DATA) != 0, what + ": FI_REMOTE_CQ_DATA");
            }
        }
    }

    @Test
    void anEmptyMessageIsJustTheCompactHeader() {
        ByteBuffer in = ByteBuffer.allocateDirect(8);
        long used = ringBytesOf(() -> tx.ep.send(ByteBuffer.allocateDirect(0), null, rxAddr, "s"), in, false);
        assertEquals(RingDescriptor.HEADER_LENGTH + ShmRecordDescriptor.COMPACT_HEADER, used);
        assertEquals(0, lastReceived.len());
    }

    @Test
    void aMessageThatAsksForAnAcknowledgementKeepsTheFullHeader() {
        ByteBuffer in = ByteBuffer.allocateDirect(64);
        io.jofi.Msg m = new io.jofi.Msg().buffer(ShmCrossProcessTest.pattern(64, 9), null).addr(rxAddr).context("s");
        rx.post(() -> rx.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "r"), "recv");
        long before = rxRing().claimedTail();
        tx.post(() -> tx.ep.sendMsg(m, Fi.FI_DELIVERY_COMPLETE), "send");
        long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
        while (rxRing().claimedTail() == before && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        long used = rxRing().claimedTail() - before;
        rx.completion(rx.rxCq, "the receive");
        tx.completion(tx.txCq, "the acknowledged send");
        assertEquals(RingDescriptor.HEADER_LENGTH + ShmRecordDescriptor.HEADER + 64, used, "the full header: it carries the token");
    }

    @Test
    void aCompactRecordWithAFlagItMayNotCarryFailsItsSender() throws Exception {
        // tx becomes a peer rx knows (one real message), then a record in tx's name claims to be
        // compact and to want a match acknowledgement: nobody could answer it (no token)
        ByteBuffer in = ByteBuffer.allocateDirect(64);
        ringBytesOf(() -> tx.ep.send(ShmCrossProcessTest.pattern(8, 1), null, rxAddr, "s"), in, false);
        long senderSeq = ShmTestHooks.own(tx.ep).seq();
        Peer txAtRx = ShmTestHooks.peers(rx.ep).peerOf(ShmOwnRing.PID, senderSeq);
        assertEquals(0, txAtRx.failed, "a peer in good standing");
        String name = rx.name().substring(ShmNames.SCHEME.length());
        try (RingLink forged = RingLink.map(dir, name)) {
            int n = ShmRecordDescriptor.COMPACT_HEADER + 8;
            int at = forged.claim(n);
            assertTrue(at >= 0, "claim");
            ByteBuffer b = forged.buffer();
            b.putInt(at + ShmRecordDescriptor.KIND_FLAGS, ShmRecordDescriptor.MSG | ShmRecordDescriptor.FIRST
                    | ShmRecordDescriptor.LAST | ShmRecordDescriptor.COMPACT | ShmRecordDescriptor.ACK_MATCH);
            b.putInt(at + ShmRecordDescriptor.STATUS, 0);
            b.putLong(at + ShmRecordDescriptor.SENDER_PID, ShmOwnRing.PID);
            b.putLong(at + ShmRecordDescriptor.SENDER_SEQ, senderSeq);
            forged.publish(at);
        }
        long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
        CqEntry[] none = new CqEntry[0];
        while (txAtRx.failed == 0 && System.nanoTime() < deadline) {
            rx.rxCq.read(none, 0); // rx's progress (MANUAL) reads the forged record
        }
        assertEquals(Errno.EPROTO, txAtRx.failed, "the sender of a malformed compact record fails");
    }
}
