package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.assertNothing;
import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jofi.CounterAttr;
import io.jofi.CqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.TaggedMsg;
import io.jofi.spi.util.UtilCounter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tagged messages, multi-receive, RMA and atomics between two JOFI MSG endpoints, beyond the
 * conformance kit: ack order under out-of-order tag matching (R11), multi-receive buffers that
 * find messages already waiting, the target's view of writeData and its counters
 * (FI_RMA_EVENT), every 64-bit atomic op.
 */
@Timeout(60)
class TcpOpsTest {
    private static final long CAPS = Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_ATOMIC | Fi.FI_READ | Fi.FI_WRITE
            | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE | Fi.FI_MULTI_RECV | Fi.FI_RMA_EVENT;

    /**
     * R11: T1 asks FI_MATCH_COMPLETE and waits unexpected; T2 (FI_DELIVERY_COMPLETE) is placed
     * in a posted receive at once. Acks name no message, so T2's ack waits for T1's: both
     * complete, in order, once T1 is matched.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void acksKeepArrivalOrderWhenTagsMatchOutOfOrder(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode, CAPS).connect(null, null)) {
            ByteBuffer r2 = ByteBuffer.allocate(8);
            assertEquals(0, bed.server.trecv(r2, null, Fi.FI_ADDR_UNSPEC, 2, 0, "r2"));
            TaggedMsg t1 = new TaggedMsg().buffer(ByteBuffer.allocate(4), null).context("t1");
            t1.tag(1);
            TaggedMsg t2 = new TaggedMsg().buffer(ByteBuffer.allocate(4), null).context("t2");
            t2.tag(2);
            assertEquals(0, bed.client.tsendMsg(t1, Fi.FI_MATCH_COMPLETE | Fi.FI_COMPLETION));
            assertEquals(0, bed.client.tsendMsg(t2, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION));
            assertEquals("r2", awaitCompletion(bed.serverCq).context(), "T2 is placed");
            assertNothing(bed.clientCq, 100);
            assertEquals(0, bed.server.trecv(ByteBuffer.allocate(8), null, Fi.FI_ADDR_UNSPEC, 1, 0, "r1"));
            assertEquals("r1", awaitCompletion(bed.serverCq).context());
            assertEquals("t1", awaitCompletion(bed.clientCq).context());
            assertEquals("t2", awaitCompletion(bed.clientCq).context());
        }
    }

    /** fi_msg FI_MULTI_RECV: messages that arrived before the buffer was posted go into it too. */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aMultiReceiveBufferTakesWaitingMessagesFirst(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode, CAPS).connect(null, null)) {
            assertEquals(io.jofi.spi.util.ReceivePosting.DEFAULT_MIN_MULTI_RECV,
                    bed.server.getOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV));
            bed.server.setOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_MIN_MULTI_RECV, 16);
            for (int i = 0; i < 3; i++) {
                assertEquals(0, bed.client.send(fill(10, 10 * i), null, Fi.FI_ADDR_UNSPEC, "s" + i));
                awaitCompletion(bed.clientCq);
            }
            ByteBuffer big = ByteBuffer.allocate(50);
            Msg two = new Msg().iov(0, big, null).iov(1, big, null).iovCount(2).context("bad");
            assertEquals(-Errno.EINVAL, bed.server.recvMsg(two, Fi.FI_MULTI_RECV), "one buffer only");
            Msg m = new Msg().buffer(big, null).context("multi");
            assertEquals(0, bed.server.recvMsg(m, Fi.FI_MULTI_RECV));
            for (int i = 0; i < 3; i++) {
                CqEntry c = awaitCompletion(bed.serverCq);
                assertSame(big, c.buf());
                assertEquals(10 * i, c.bufOffset(), "placed one after another");
                assertEquals(10, c.len());
                assertEquals(0, c.flags() & Fi.FI_MULTI_RECV, "20 bytes left after three: not released yet");
            }
            assertEquals(0, bed.client.send(fill(10, 30), null, Fi.FI_ADDR_UNSPEC, "s3"));
            CqEntry last = awaitCompletion(bed.serverCq);
            assertEquals(30, last.bufOffset());
            assertEquals(Fi.FI_RECV | Fi.FI_MSG | Fi.FI_MULTI_RECV, last.flags(), "10 left, below 16: released");
            assertEquals(30, big.get(30));
        }
    }

    /**
     * fi_writedata: the target's receive CQ gets FI_RMA|FI_REMOTE_WRITE|FI_REMOTE_CQ_DATA; the
     * target's counters count remote writes and reads (FI_RMA_EVENT), the initiator's its writes
     * and reads.
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void writeDataAndCountersOnBothSides(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode, CAPS)) {
            UtilCounter w = (UtilCounter) bed.domain.openCounter(new CounterAttr(), "w");
            UtilCounter r = (UtilCounter) bed.domain.openCounter(new CounterAttr(), "r");
            UtilCounter rw = (UtilCounter) bed.domain.openCounter(new CounterAttr(), "rw");
            UtilCounter rr = (UtilCounter) bed.domain.openCounter(new CounterAttr(), "rr");
            bed.closeLater.addAll(java.util.List.of(w, r, rw, rr));
            bed.connect(null, null, ep -> {
                if ("client".equals(ep.context())) {
                    ep.bind(w, Fi.FI_WRITE);
                    ep.bind(r, Fi.FI_READ);
                } else {
                    ep.bind(rw, Fi.FI_REMOTE_WRITE);
                    ep.bind(rr, Fi.FI_REMOTE_READ);
                }
            });
            ByteBuffer target = ByteBuffer.allocateDirect(64);
            MemoryRegion mr = bed.domain.register(target, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 0, 0, "mr");
            assertEquals(0, bed.client.writeData(fill(8, 1), null, 0xabcdL, Fi.FI_ADDR_UNSPEC, mr.address() + 4,
                    mr.key(), "wd"));
            assertEquals("wd", awaitCompletion(bed.clientCq).context());
            CqEntry t = awaitCompletion(bed.serverCq);
            assertEquals(Fi.FI_RMA | Fi.FI_REMOTE_WRITE | Fi.FI_REMOTE_CQ_DATA, t.flags());
            assertEquals(0xabcdL, t.data());
            assertEquals(8, t.len());
            assertEquals(null, t.context());
            assertEquals(1, target.get(4));
            ByteBuffer back = ByteBuffer.allocate(8);
            assertEquals(0, bed.client.read(back, null, Fi.FI_ADDR_UNSPEC, mr.address() + 4, mr.key(), "rd"));
            CqEntry rd = awaitCompletion(bed.clientCq);
            assertEquals(Fi.FI_RMA | Fi.FI_READ, rd.flags());
            assertEquals(8, back.get(7));
            // A provider thread publishes a completion, then counts it (a counter never runs
            // ahead of its entries: CompletionBatch): under AUTO progress the count may follow
            // the entry just read by a moment, so wait for it, bounded (these counters have no
            // wait object: await would answer -ENOSYS).
            for (UtilCounter c : java.util.List.of(w, r, rw, rr)) {
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (c.read() < 1 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertEquals(1, c.read(), "counter " + c);
            }
            mr.close();
        }
    }

    /** Every 64-bit atomic op this provider implements, through fetching atomics. */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void everyAtomicOp(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode, CAPS).connect(null, null)) {
            ByteBuffer target = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
            MemoryRegion mr = bed.domain.register(target, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 0, 0, "mr");
            ByteBuffer result = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
            long word = mr.address() + 8;
            target.putLong(8, 0b1100);
            long[][] cases = {
                {Fi.FI_BOR, 0b0011, 0b1100, 0b1111},
                {Fi.FI_BAND, 0b0110, 0b1111, 0b0110},
                {Fi.FI_BXOR, 0b0101, 0b0110, 0b0011},
                {Fi.FI_MIN, -4, 0b0011, -4},
                {Fi.FI_MAX, 9, -4, 9},
                {Fi.FI_SUM, 1, 9, 10},
                {Fi.FI_ATOMIC_WRITE, 77, 10, 77},
                {Fi.FI_ATOMIC_READ, 0, 77, 77},
            };
            for (long[] c : cases) {
                assertEquals(0, bed.client.fetchAtomic(c[1], result, null, Fi.FI_ADDR_UNSPEC, word, mr.key(), (int) c[0],
                        "op" + c[0]));
                CqEntry e = awaitCompletion(bed.clientCq);
                assertEquals(Fi.FI_ATOMIC | Fi.FI_READ, e.flags());
                assertEquals(c[2], result.getLong(0), "old value of op " + c[0]);
                assertEquals(c[3], target.getLong(8), "new value of op " + c[0]);
            }
            assertEquals(-Errno.EOPNOTSUPP, bed.client.fetchAtomic(1, result, null, Fi.FI_ADDR_UNSPEC, word, mr.key(),
                    Fi.FI_CSWAP_LE, "unsupported"), "an op not implemented");
            assertEquals(0, bed.client.compareAtomic(77, 5, result, null, Fi.FI_ADDR_UNSPEC, word, mr.key(), "cswap"));
            awaitCompletion(bed.clientCq);
            assertEquals(5, target.getLong(8));
            mr.close();
        }
    }

    /**
     * Many tagged messages with mixed completion levels, received tag by tag in another order
     * than sent: each arrives once, in send order per tag, and every send completes (the acks
     * of out-of-order matches keep their arrival order).
     */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void manyTaggedMessagesMatchedOutOfOrder(Progress mode) throws Exception {
        int n = 300;
        int tags = 7;
        long[] levels = {0, Fi.FI_DELIVERY_COMPLETE, Fi.FI_MATCH_COMPLETE};
        try (TcpTestBed bed = new TcpTestBed(mode, CAPS).connect(null, null)) {
            TaggedMsg m = new TaggedMsg();
            for (int i = 0; i < n; i++) {
                ByteBuffer b = ByteBuffer.allocate(4).putInt(0, i);
                m.buffer(b, null).context(i);
                m.tag(i % tags);
                long flags = levels[i % levels.length] | Fi.FI_COMPLETION;
                int rc;
                while ((rc = bed.client.tsendMsg(m, flags)) == -Errno.EAGAIN) {
                    bed.clientCq.read(new CqEntry[0], 0); // drive manual progress
                }
                assertEquals(0, rc);
            }
            ByteBuffer[] bufs = new ByteBuffer[n];
            int k = 0;
            for (int t = tags - 1; t >= 0; t--) {
                for (int i = t; i < n; i += tags) {
                    bufs[k] = ByteBuffer.allocate(4);
                    assertEquals(0, bed.server.trecv(bufs[k], null, Fi.FI_ADDR_UNSPEC, t, 0, k));
                    k++;
                }
            }
            boolean[] got = new boolean[n];
            for (int j = 0; j < n; j++) {
                CqEntry c = awaitCompletion(bed.serverCq);
                int slot = (Integer) c.context();
                int value = bufs[slot].getInt(0);
                assertEquals(false, got[value], "message " + value + " arrives once");
                got[value] = true;
            }
            // per tag, the receives posted in order hold the messages in send order
            k = 0;
            for (int t = tags - 1; t >= 0; t--) {
                for (int i = t; i < n; i += tags) {
                    assertEquals(i, bufs[k++].getInt(0), "tag " + t + " in send order");
                }
            }
            boolean[] sent = new boolean[n];
            for (int j = 0; j < n; j++) {
                int i = (Integer) awaitCompletion(bed.clientCq).context();
                assertEquals(false, sent[i]);
                sent[i] = true;
            }
        }
    }

    /** A region over a heap buffer takes atomics too (the VarHandle's atomic modes, or plain access under the lock). */
    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO"})
    void atomicsOnAHeapRegion(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode, CAPS).connect(null, null)) {
            ByteBuffer target = ByteBuffer.allocate(24).order(ByteOrder.nativeOrder());
            target.putLong(8, 41);
            MemoryRegion mr = bed.domain.register(target, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 0, 0, "heap");
            ByteBuffer result = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
            assertEquals(0, bed.client.fetchAtomic(1, result, null, Fi.FI_ADDR_UNSPEC, mr.address() + 8, mr.key(),
                    Fi.FI_SUM, "heap-sum"));
            assertEquals("heap-sum", awaitCompletion(bed.clientCq).context());
            assertEquals(41, result.getLong(0));
            assertEquals(42, target.getLong(8));
            mr.close();
        }
    }

    private static ByteBuffer fill(int n, int seed) {
        ByteBuffer b = ByteBuffer.allocate(n);
        for (int i = 0; i < n; i++) {
            b.put(i, (byte) (seed + i));
        }
        return b;
    }
}
