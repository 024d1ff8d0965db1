package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.provider.verbs.binding.IbvRecvWrDescriptor;
import io.jofi.provider.verbs.binding.IbvSendWrDescriptor;
import io.jofi.provider.verbs.binding.IbvSgeDescriptor;
import io.jofi.provider.verbs.binding.VerbsConstants;
import io.jofi.provider.verbs.binding.VerbsLibraries;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The work requests the endpoint posts, as the device will read them: staged in native memory
 * at the descriptors' offsets, chained through {@code next}, SGEs where {@code sg_list} points.
 * Needs JNA's native part only (no device, no rdma-core).
 */
class WorkRequestStagingTest {
    @BeforeAll
    static void jnaLoads() {
        // NativeBlock is JNA Memory: this only needs JNA's own native part
        VerbsLibraries.load();
    }

    @Test
    void aSendChainLinksItsWorkRequestsAndTheirSges() {
        try (SendChain c = new SendChain(4, 2)) {
            int a = c.stage(7, VerbsConstants.IBV_WR_SEND_WITH_IMM, VerbsConstants.IBV_SEND_SIGNALED,
                    Integer.reverseBytes(0x01020304), 0, 0, 0, 0);
            c.sge(a, 0x1000, 100, 0x55);
            c.sge(a, 0x2000, 50, 0x66);
            int b = c.stage(8, VerbsConstants.IBV_WR_RDMA_WRITE, VerbsConstants.IBV_SEND_SIGNALED, 0, 0xABCDEF00L,
                    0x77, 0, 0);
            c.sge(b, 0x3000, 10, 0x88);
            assertEquals(2, c.staged());

            ByteBuffer w = c.workRequests().view();
            long base = c.workRequests().address();
            int at0 = 0;
            int at1 = IbvSendWrDescriptor.SIZE;
            assertEquals(7, w.getLong(at0 + IbvSendWrDescriptor.WR_ID));
            assertEquals(base + at1, w.getLong(at0 + IbvSendWrDescriptor.NEXT), "the first links to the second");
            assertEquals(0, w.getLong(at1 + IbvSendWrDescriptor.NEXT), "the chain ends");
            assertEquals(2, w.getInt(at0 + IbvSendWrDescriptor.NUM_SGE));
            assertEquals(VerbsConstants.IBV_WR_SEND_WITH_IMM, w.getInt(at0 + IbvSendWrDescriptor.OPCODE));
            assertEquals(Integer.reverseBytes(0x01020304), w.getInt(at0 + IbvSendWrDescriptor.IMM_DATA));
            assertEquals(0xABCDEF00L, w.getLong(at1 + IbvSendWrDescriptor.WR_RDMA_REMOTE_ADDR));
            assertEquals(0x77, w.getInt(at1 + IbvSendWrDescriptor.WR_RDMA_RKEY));

            ByteBuffer s = c.scatterGather().view();
            long sgl0 = w.getLong(at0 + IbvSendWrDescriptor.SG_LIST) - c.scatterGather().address();
            long sgl1 = w.getLong(at1 + IbvSendWrDescriptor.SG_LIST) - c.scatterGather().address();
            assertEquals(0x1000, s.getLong((int) sgl0 + IbvSgeDescriptor.ADDR));
            assertEquals(50, s.getInt((int) sgl0 + IbvSgeDescriptor.SIZE + IbvSgeDescriptor.LENGTH));
            assertEquals(0x66, s.getInt((int) sgl0 + IbvSgeDescriptor.SIZE + IbvSgeDescriptor.LKEY));
            assertEquals(0x3000, s.getLong((int) sgl1 + IbvSgeDescriptor.ADDR));
            assertEquals(0x88, s.getInt((int) sgl1 + IbvSgeDescriptor.LKEY));
        }
    }

    @Test
    void atomicsKeepCompareSwapAndTheirOwnRkey() {
        try (SendChain c = new SendChain(2, 1)) {
            int a = c.stage(1, VerbsConstants.IBV_WR_ATOMIC_CMP_AND_SWP, VerbsConstants.IBV_SEND_SIGNALED, 0, 0x8000,
                    0x99, 5, 6);
            ByteBuffer w = c.workRequests().view();
            assertEquals(0x8000, w.getLong(IbvSendWrDescriptor.WR_ATOMIC_REMOTE_ADDR));
            assertEquals(5, w.getLong(IbvSendWrDescriptor.WR_ATOMIC_COMPARE_ADD), "the rdma rkey must not overwrite it");
            assertEquals(6, w.getLong(IbvSendWrDescriptor.WR_ATOMIC_SWAP));
            assertEquals(0x99, w.getInt(IbvSendWrDescriptor.WR_ATOMIC_RKEY));
            assertEquals(0, a);
        }
    }

    @Test
    void unstagingTheLastEndsTheChainAgainAndSgesAreBounded() {
        try (SendChain c = new SendChain(3, 1)) {
            c.stage(1, VerbsConstants.IBV_WR_SEND, 0, 0, 0, 0, 0, 0);
            int b = c.stage(2, VerbsConstants.IBV_WR_SEND, 0, 0, 0, 0, 0, 0);
            c.sge(b, 1, 1, 1);
            assertThrows(IllegalStateException.class, () -> c.sge(b, 1, 1, 1));
            c.unstage();
            assertEquals(1, c.staged());
            assertEquals(0, c.workRequests().view().getLong(IbvSendWrDescriptor.NEXT));
        }
    }

    @Test
    void aRecvChainLinksItsWorkRequests() {
        try (RecvChain c = new RecvChain(4, 1)) {
            int a = c.stage((1L << 32) | 3);
            c.sge(a, 0x4000, 64, 0x11);
            int b = c.stage((1L << 32) | 4);
            c.sge(b, 0x5000, 32, 0x22);
            c.stage((1L << 32) | 5); // a zero-length receive has no SGE
            ByteBuffer w = c.workRequests().view();
            assertEquals((1L << 32) | 3, w.getLong(IbvRecvWrDescriptor.WR_ID));
            assertEquals(c.workRequests().address(IbvRecvWrDescriptor.SIZE), w.getLong(IbvRecvWrDescriptor.NEXT));
            assertEquals(c.workRequests().address(2 * IbvRecvWrDescriptor.SIZE),
                    w.getLong(IbvRecvWrDescriptor.SIZE + IbvRecvWrDescriptor.NEXT));
            assertEquals(0, w.getInt(2 * IbvRecvWrDescriptor.SIZE + IbvRecvWrDescriptor.NUM_SGE));
            assertTrue(!c.full());
        }
    }
}
