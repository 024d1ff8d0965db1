package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The data path of {@link io.jofi.provider.rxm.RxmEndpoint} over tcp MSG allocates nothing
 * per message once warm: eager messages up to the eager limit (64 B, 4 KiB, 16 KiB) and a
 * message sent as three segments (40 000 B), whose packets are in flight at once — there the
 * tcp receiver's pooled receives carry rxm's buffers in changing pairs, and before the receive
 * queue kept the views of the scattering reads by buffer ({@code ReceiveViews}) each change
 * duplicated one: 128 B per three-packet message. Untagged and tagged sends with remote CQ data, posted
 * receives, completions read with the sender's fi_addr, both endpoints driven by MANUAL
 * progress on one thread, measured with {@code ThreadMXBean.getThreadAllocatedBytes}. (The
 * smaller of two measured passes counts: a one-time class load may fall in one.)
 */
class RxmAllocationTest {
    private static final int ROUNDS = 2000;
    private static final int OPS_PER_ROUND = 8;

    @ParameterizedTest
    @ValueSource(ints = {64, 4096, 16384, 40000})
    void messagesAllocateNothing(int size) throws Exception {
        long best = leastAllocated(io.jofi.provider.rxm.RxmSettings.defaults().withSarLimit(128 << 10), size, 500, ROUNDS);
        long ops = (long) OPS_PER_ROUND * ROUNDS;
        assertTrue(best < ops, best + " bytes allocated over " + ops + " operations of " + size + " B: the path allocates");
    }

    /**
     * Rendezvous messages by RMA read (above the SAR limit: the receiver reads straight into
     * its posted buffer, the sender's buffer registered once, RxmRegistrationCache) allocate
     * nothing per message either. By RMA write they do, by design: the receiver registers the
     * buffer it offers for remote writes for that one message and closes the registration at
     * the write-done, so that the peer cannot write into it once the receive completed (what
     * the registration allocates is the price of that).
     */
    @org.junit.jupiter.api.Test
    void rendezvousByReadAllocatesNothing() throws Exception {
        int rounds = 300;
        long best = leastAllocated(io.jofi.provider.rxm.RxmSettings.defaults().withSarLimit(32 << 10), 256 << 10, 200, rounds);
        // an object per message would be at least 16 B each
        assertTrue(best < 16L * rounds, best + " bytes allocated over " + rounds
                + " rendezvous messages of 256 KiB by RMA read: the path allocates");
    }

    /**
     * The bytes the smaller of two measured passes of {@code rounds} round trips allocated,
     * after {@code warmup} (a one-time class load may fall in one pass).
     */
    private static long leastAllocated(io.jofi.provider.rxm.RxmSettings settings, int size, int warmup, int rounds)
            throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(mx.isThreadAllocatedMemorySupported());
        try (RxmOverTcpTest.Side a = new RxmOverTcpTest.Side(Progress.MANUAL, settings);
             RxmOverTcpTest.Side b = new RxmOverTcpTest.Side(Progress.MANUAL, settings)) {
            long bInA = a.insert(b.ep.getName());
            long aInB = b.insert(a.ep.getName());
            ByteBuffer tx = ByteBuffer.allocateDirect(size);
            ByteBuffer rx = ByteBuffer.allocateDirect(size);
            CqEntry[] e = {new CqEntry()};
            long[] src = new long[1];
            Object ctx = "ctx";
            run(a, b, bInA, aInB, tx, rx, e, src, ctx, warmup);
            long tid = Thread.currentThread().getId();
            long best = Long.MAX_VALUE;
            for (int pass = 0; pass < 2; pass++) {
                long before = mx.getThreadAllocatedBytes(tid);
                run(a, b, bInA, aInB, tx, rx, e, src, ctx, rounds);
                best = Math.min(best, mx.getThreadAllocatedBytes(tid) - before);
            }
            return best;
        }
    }

    private static void run(RxmOverTcpTest.Side a, RxmOverTcpTest.Side b, long bInA, long aInB, ByteBuffer tx,
                            ByteBuffer rx, CqEntry[] e, long[] src, Object ctx, int rounds) {
        for (int i = 0; i < rounds; i++) {
            boolean tagged = (i & 1) == 0;
            rx.clear();
            assertEquals(0, tagged ? b.ep.trecv(rx, null, Fi.FI_ADDR_UNSPEC, 7, 0, ctx)
                    : b.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, ctx));
            tx.clear();
            int rc;
            while ((rc = tagged ? a.ep.tsendData(tx, null, i, bInA, 7, ctx) : a.ep.sendData(tx, null, i, bInA, ctx))
                    == -Errno.EAGAIN) {
                b.rxCq.read(e, 0);
            }
            assertEquals(0, rc);
            while (a.txCq.read(e, 1) != 1) {
                b.rxCq.read(e, 0);
            }
            while (b.rxCq.readFrom(e, 1, src) != 1) {
                a.txCq.read(e, 0);
            }
            if (src[0] != aInB || e[0].data() != i) {
                throw new AssertionError("round " + i + ": source " + src[0] + ", data " + e[0].data());
            }
        }
    }
}
