package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Progress;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A hostile tcp peer on a real socket (docs/TCP-WIRE.md "Bad input"): after the handshake it
 * writes 500 frames with plausible headers — messages, tagged messages, RMA read requests and
 * responses, RMA writes whose descriptors name the victim's registered memory or nothing —
 * and in one frame of five one field made random (op, flags, op_data, descriptor count,
 * header size, size, a descriptor word), while the victim has receives posted and answers
 * what it is asked. The decoder has its own fuzz (-Pfuzz); this one reaches the endpoint
 * behind it. The victim may end the connection (a malformed frame) but nothing may throw out of
 * its progress or stop its domain: a new peer's message arrives afterwards. Seeds
 * {@code -Djofi.tcp.frames.seeds=N} (default 6), {@code -Djofi.tcp.frames.first=F}; MANUAL
 * progress on the odd ones.
 */
@Timeout(120)
class TcpRandomFrameTest {
    private static final int FRAMES = 500;

    static LongStream seeds() {
        long first = Long.getLong("jofi.tcp.frames.first", 1);
        return LongStream.range(first, first + Long.getLong("jofi.tcp.frames.seeds", 6));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomFramesDoNotStopTheDomain(long seed) throws Exception {
        SplittableRandom r = new SplittableRandom(seed);
        try (TcpTestBed bed = new TcpTestBed(seed % 2 == 1 ? Progress.MANUAL : Progress.AUTO);
             MemoryRegion mr = bed.domain.register(ByteBuffer.allocateDirect(1 << 16),
                     Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 0, 0, null)) {
            try (TcpPeerInputTest.RawPeer raw = new TcpPeerInputTest.RawPeer(bed)) {
                for (int i = 0; i < 32; i++) {
                    assertEquals(0, raw.victim.recv(ByteBuffer.allocateDirect(256), null, Fi.FI_ADDR_UNSPEC, "any"));
                }
                Thread drain = drain(raw);
                try {
                    for (int i = 0; i < FRAMES; i++) {
                        raw.out.write(frame(r, mr));
                        if (i % 16 == 0) {
                            bed.serverCq.read(new CqEntry[0], 0); // MANUAL: the victim reads
                        }
                    }
                } catch (IOException ended) {
                    // the victim ended the connection for a malformed frame: allowed
                }
                long deadline = System.nanoTime() + 300_000_000L;
                while (System.nanoTime() < deadline) {
                    bed.serverCq.read(new CqEntry[0], 0);
                    Thread.onSpinWait();
                }
                drain.interrupt();
            }
            // the domain serves a new peer: its message arrives in the receive posted for it
            try (TcpPeerInputTest.RawPeer next = new TcpPeerInputTest.RawPeer(bed)) {
                ByteBuffer in = ByteBuffer.allocateDirect(64);
                assertEquals(0, next.victim.recv(in, null, Fi.FI_ADDR_UNSPEC, "after"));
                next.out.write(message("after the random frames"));
                assertEquals("after", ours(bed));
                assertEquals('a', in.get(0));
            }
        }
    }

    /** The next completion of the bed's CQ that is not the random frames' doing ("any", or an error entry of theirs). */
    private static Object ours(TcpTestBed bed) {
        CqEntry[] one = {new CqEntry()};
        CqErrEntry err = new CqErrEntry();
        long deadline = System.nanoTime() + TcpTestBed.TIMEOUT_MS * 1_000_000L;
        while (System.nanoTime() < deadline) {
            int rc = bed.serverCq.read(one, 1);
            if (rc == 1 && one[0].context() != null && !"any".equals(one[0].context())) {
                return one[0].context();
            }
            if (rc == -Errno.EAVAIL) {
                assertEquals(1, bed.serverCq.readErr(err, 0));
                assertTrue(err.context() == null || "any".equals(err.context()), () -> "error completion " + err);
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion within " + TcpTestBed.TIMEOUT_MS + " ms");
    }

    /** Reads and drops what the victim sends (acknowledgements, read responses) so that it never blocks on us. */
    private static Thread drain(TcpPeerInputTest.RawPeer raw) {
        Thread t = new Thread(() -> {
            byte[] sink = new byte[1 << 16];
            try {
                while (raw.in.read(sink) >= 0) {
                    // dropped
                }
            } catch (IOException e) {
                // the connection ended
            }
        }, "random-frames-drain");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** A well-formed untagged message of {@code text}. */
    private static byte[] message(String text) {
        byte[] p = text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(TcpWireDescriptor.BASE_HEADER_LENGTH + p.length);
        b.put(TcpWireDescriptor.VERSION_OFFSET, (byte) TcpWireDescriptor.VERSION)
                .put(TcpWireDescriptor.HDR_SIZE_OFFSET, (byte) TcpWireDescriptor.BASE_HEADER_LENGTH)
                .putLong(TcpWireDescriptor.SIZE_OFFSET, b.capacity()).put(TcpWireDescriptor.BASE_HEADER_LENGTH, p);
        return b.array();
    }

    /** One frame: a plausible header of a random op (big-endian, as on every JOFI connection), one field maybe random. */
    private static byte[] frame(SplittableRandom r, MemoryRegion mr) {
        int op = r.nextInt(10) == 0 ? r.nextInt(256) : r.nextInt(TcpWireDescriptor.MAX_OP + 1);
        boolean rma = op == TcpWireDescriptor.OP_READ_REQUEST || op == TcpWireDescriptor.OP_WRITE;
        int flags = (r.nextInt(4) == 0 ? TcpWireDescriptor.FLAG_REMOTE_CQ_DATA : 0)
                | (r.nextInt(4) == 0 ? TcpWireDescriptor.FLAG_DELIVERY_COMPLETE : 0)
                | (r.nextInt(8) == 0 ? TcpWireDescriptor.FLAG_COMMIT_COMPLETE : 0)
                | (op == TcpWireDescriptor.OP_MSG && r.nextInt(4) == 0 ? TcpWireDescriptor.FLAG_TAGGED : 0);
        int iovs = rma ? 1 + r.nextInt(TcpWireDescriptor.MAX_RMA_IOV_COUNT) : 0;
        boolean tagged = op == TcpWireDescriptor.OP_TAGGED || (flags & TcpWireDescriptor.FLAG_TAGGED) != 0;
        int hdr = TcpWireDescriptor.BASE_HEADER_LENGTH + ((flags & TcpWireDescriptor.FLAG_REMOTE_CQ_DATA) != 0 ? 8 : 0)
                + (tagged ? 8 : 0) + TcpWireDescriptor.RMA_IOV_LENGTH * iovs;
        long[] lens = new long[iovs];
        long payload = 0;
        for (int i = 0; i < iovs; i++) {
            lens[i] = 8 * r.nextInt(64);
            payload += op == TcpWireDescriptor.OP_WRITE ? lens[i] : 0;
        }
        if (op == TcpWireDescriptor.OP_MSG || op == TcpWireDescriptor.OP_TAGGED || op == TcpWireDescriptor.OP_READ_RESPONSE) {
            payload = r.nextInt(300);
        }
        int mutated = r.nextInt(5) == 0 ? r.nextInt(7) : -1;
        ByteBuffer b = ByteBuffer.allocate(hdr + (int) payload);
        b.put(TcpWireDescriptor.VERSION_OFFSET, (byte) TcpWireDescriptor.VERSION);
        b.put(TcpWireDescriptor.OP_OFFSET, (byte) (mutated == 0 ? r.nextInt(256) : op));
        b.putShort(TcpWireDescriptor.FLAGS_OFFSET, (short) (mutated == 1 ? r.nextInt() : flags));
        b.put(TcpWireDescriptor.OP_DATA_OFFSET, (byte) (mutated == 2 ? r.nextInt(256)
                : r.nextInt(10) == 0 ? TcpWireDescriptor.OP_DATA_ACK : 0));
        b.put(TcpWireDescriptor.RMA_IOV_COUNT_OFFSET, (byte) (mutated == 3 ? r.nextInt(256) : iovs));
        b.put(TcpWireDescriptor.HDR_SIZE_OFFSET, (byte) (mutated == 4 ? r.nextInt(256) : hdr));
        b.putLong(TcpWireDescriptor.SIZE_OFFSET, mutated == 5 ? (r.nextBoolean() ? r.nextLong() : r.nextInt(1 << 20))
                : hdr + payload);
        int at = TcpWireDescriptor.BASE_HEADER_LENGTH;
        if ((flags & TcpWireDescriptor.FLAG_REMOTE_CQ_DATA) != 0) {
            b.putLong(at, r.nextLong());
            at += 8;
        }
        if (tagged) {
            b.putLong(at, r.nextInt(4));
            at += 8;
        }
        for (int i = 0; i < iovs; i++) {
            boolean bad = mutated == 6 && r.nextBoolean();
            b.putLong(at + TcpWireDescriptor.RMA_IOV_ADDR_OFFSET, bad ? r.nextLong() : mr.address() + 8 * r.nextInt(4096));
            b.putLong(at + TcpWireDescriptor.RMA_IOV_LEN_OFFSET, bad && r.nextBoolean() ? r.nextLong() : lens[i]);
            b.putLong(at + TcpWireDescriptor.RMA_IOV_KEY_OFFSET, bad && r.nextBoolean() ? r.nextLong() : mr.key());
            at += TcpWireDescriptor.RMA_IOV_LENGTH;
        }
        for (int k = hdr; k < b.capacity(); k++) {
            b.put(k, (byte) r.nextInt());
        }
        return b.array();
    }
}
