package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.CqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The receive path's read buffer ({@link TcpReceiver#READ_BUFFER_BYTES}): bursts of messages of
 * mixed sizes — below and above {@link TcpReceiver#COPY_THRESHOLD}, below and above the read
 * buffer, empty ones — arrive whole and in order whether many come in one read (copied from
 * the read buffer), a payload is read straight into the posted buffer (scattering read with the
 * read buffer last) or into the unexpected buffer, and whether the receives were posted before
 * the burst or after it arrived. Heap and direct receive buffers alternate.
 */
class TcpReceivePathTest {
    private static final int[] SIZES = {0, 1, 64, TcpReceiver.COPY_THRESHOLD - 1, TcpReceiver.COPY_THRESHOLD, 5000,
        TcpReceiver.READ_BUFFER_BYTES, TcpReceiver.READ_BUFFER_BYTES + 1, 70_000, 17, 300_000, 3};
    private static final int ROUNDS = 4;

    private static ByteBuffer pattern(int size, long seed) {
        ByteBuffer b = (seed & 1) == 0 ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
        Random r = new Random(seed);
        for (int i = 0; i < size; i++) {
            b.put(i, (byte) r.nextInt());
        }
        return b;
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aBurstOfMixedSizesArrivesWholeAndInOrderIntoPostedReceives(Progress mode) throws Exception {
        run(mode, true);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aBurstOfMixedSizesArrivesWholeAndInOrderThroughTheUnexpectedBuffer(Progress mode) throws Exception {
        run(mode, false);
    }

    private static void run(Progress mode, boolean postFirst) throws Exception {
        int n = SIZES.length * ROUNDS;
        try (TcpTestBed bed = new TcpTestBed(mode).connect(null, null)) {
            ByteBuffer[] rx = new ByteBuffer[n];
            for (int i = 0; i < n; i++) {
                int size = SIZES[i % SIZES.length];
                rx[i] = (i & 1) == 0 ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
                if (postFirst) {
                    assertEquals(0, bed.server.recv(rx[i], null, Fi.FI_ADDR_UNSPEC, i));
                }
            }
            ByteBuffer[] tx = new ByteBuffer[n];
            for (int i = 0; i < n; i++) {
                tx[i] = pattern(SIZES[i % SIZES.length], i);
                int rc;
                long deadline = System.nanoTime() + TcpTestBed.TIMEOUT_MS * 1_000_000L;
                while ((rc = bed.client.sendData(tx[i], null, i, Fi.FI_ADDR_UNSPEC, "tx" + i)) == -Errno.EAGAIN) {
                    bed.clientCq.read(new io.jofi.CqEntry[] {new CqEntry()}, 0); // drives progress
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("no room to send message " + i);
                    }
                }
                assertEquals(0, rc, "send " + i);
            }
            if (!postFirst) {
                TcpTestBed.assertNothing(bed.serverCq, 50); // drives progress: the burst is buffered
                for (int i = 0; i < n; i++) {
                    assertEquals(0, bed.server.recv(rx[i], null, Fi.FI_ADDR_UNSPEC, i));
                }
            }
            for (int i = 0; i < n; i++) {
                CqEntry r = awaitCompletion(bed.serverCq);
                assertEquals(i, r.context(), "completion order");
                assertEquals(SIZES[i % SIZES.length], r.len(), "length of message " + i);
                assertEquals(i, r.data(), "CQ data of message " + i);
                for (int b = 0; b < r.len(); b++) {
                    if (tx[i].get(b) != rx[i].get(b)) {
                        throw new AssertionError("message " + i + " (" + r.len() + " bytes): byte " + b + " differs");
                    }
                }
            }
        }
    }
}
