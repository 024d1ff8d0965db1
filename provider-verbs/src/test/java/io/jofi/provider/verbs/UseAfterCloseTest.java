package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.provider.verbs.binding.NativeBlock;
import io.jofi.provider.verbs.binding.VerbsConstants;
import io.jofi.provider.verbs.binding.VerbsLibraries;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Native memory used after it was freed fails loudly ({@link IllegalStateException}) instead of
 * writing freed memory (a crash or silent heap corruption), and a second close is harmless: for
 * {@link NativeBlock} and for the owners that cache its view ({@link SendChain},
 * {@link RecvChain}, {@link CqPoller}). Needs JNA's native part only (no device).
 */
class UseAfterCloseTest {
    @BeforeAll
    static void jnaLoads() {
        VerbsLibraries.load();
    }

    @Test
    void aClosedBlockRefusesEveryUseAndClosesOnce() {
        NativeBlock b = new NativeBlock(64);
        b.view().putLong(0, 42L);
        assertEquals(42L, b.view().getLong(0));
        assertFalse(b.isClosed());
        b.close();
        assertTrue(b.isClosed());
        assertDoesNotThrow(b::close, "a second close does nothing");
        assertThrows(IllegalStateException.class, b::address);
        assertThrows(IllegalStateException.class, () -> b.address(8));
        assertThrows(IllegalStateException.class, b::view);
        assertThrows(IllegalStateException.class, b::pointer);
        assertThrows(IllegalStateException.class, b::clear);
        assertEquals(64, b.size(), "the size stays known (it is not a use of the memory)");
    }

    @Test
    void aClosedSendChainRefusesToStageOrPost() {
        SendChain c = new SendChain(4, 2);
        int wr = c.stage(1, VerbsConstants.IBV_WR_SEND, VerbsConstants.IBV_SEND_SIGNALED, 0, 0, 0, 0, 0);
        c.sge(wr, 0x1000, 8, 1);
        c.close();
        assertDoesNotThrow(c::close, "a second close does nothing");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> c.stage(2, VerbsConstants.IBV_WR_SEND, 0, 0, 0, 0, 0, 0));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> c.sge(wr, 0x2000, 8, 1));
        assertThrows(IllegalStateException.class, c::unstage);
        assertThrows(IllegalStateException.class, () -> c.post(null));
        assertThrows(IllegalStateException.class, () -> c.wrId(0));
        assertThrows(IllegalStateException.class, () -> c.queuePair(0x1000));
        assertThrows(IllegalStateException.class, () -> c.workRequests().view());
    }

    @Test
    void aClosedRecvChainRefusesToStageOrPost() {
        RecvChain c = new RecvChain(4, 2);
        int wr = c.stage(1);
        c.close();
        assertDoesNotThrow(c::close, "a second close does nothing");
        assertThrows(IllegalStateException.class, () -> c.stage(2));
        assertThrows(IllegalStateException.class, () -> c.sge(wr, 0x2000, 8, 1));
        assertThrows(IllegalStateException.class, c::unstage);
        assertThrows(IllegalStateException.class, () -> c.post(null));
        assertThrows(IllegalStateException.class, () -> c.queuePair(0x1000));
        assertThrows(IllegalStateException.class, () -> c.scatterGather().address());
    }

    @Test
    void aClosedPollerRefusesToPoll() {
        io.jofi.spi.util.stats.StatsCounter emptyPolls = new io.jofi.spi.util.stats.CounterGroup(
                io.jofi.spi.util.stats.StatsFile.none(), io.jofi.spi.util.stats.StatsFileDescriptor.TYPE_OTHER,
                "verbs/UseAfterCloseTest").counter("empty CQ polls");
        CqPoller p = new CqPoller(0x1000, 4, emptyPolls); // never polled: the CQ address is not dereferenced here
        p.close();
        assertDoesNotThrow(p::close, "a second close does nothing");
        assertThrows(IllegalStateException.class, () -> p.poll(null, (wrId, status, opcode, byteLen, imm, flags,
                vendorErr, qpNum) -> { }));
        assertThrows(IllegalStateException.class, () -> p.drain(null, null, 8));
        assertThrows(IllegalStateException.class, () -> p.requestNotify(null));
    }
}
