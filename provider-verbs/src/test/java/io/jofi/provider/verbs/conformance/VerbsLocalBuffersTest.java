package io.jofi.provider.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.Msg;
import io.jofi.Progress;
import io.jofi.RmaMsg;
import io.jofi.conformance.ConformanceFixture;
import io.jofi.conformance.EndpointPair;
import io.jofi.conformance.PairSpec;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The verbs provider's local-buffer limits (README "Limits") on MSG endpoints (RDM endpoints,
 * the rxm layer, copy eager payloads into registered packets and register what they send by
 * rendezvous, so these limits reach them only through RMA passed to the MSG endpoints): an
 * operation holds at most one entry of the registration cache (a second unregistered
 * direct buffer in one {@code sendMsg} is {@code -EINVAL}: it would stay held for ever) and
 * copies back into at most one heap buffer (a second heap buffer read into by one
 * {@code readMsg} is {@code -EMSGSIZE}: it would never receive its data); a refused operation
 * changes nothing. And a canceled receive that never reached the device (an MSG endpoint's,
 * waiting for its queue pair) gives its cache entry back. Skipped with "verbs unavailable: …"
 * without an active RDMA port (runs in the soft-RoCE VM).
 */
class VerbsLocalBuffersTest {
    private static final long TIMEOUT_MS = 20_000;

    @BeforeEach
    void verbsAvailable() {
        VerbsAvailable.assume();
    }

    @ParameterizedTest
    @EnumSource(value = EpType.class, names = {"MSG"})
    void aSecondUnregisteredDirectBufferInOneSendIsRefusedAndChangesNothing(EpType type) throws FabricException {
        try (ConformanceFixture fx = new ConformanceFixture(Fabrics.standalone(), "verbs", type, Progress.AUTO,
                TIMEOUT_MS)) {
            EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG));
            ByteBuffer r = ByteBuffer.allocateDirect(1024);
            assertEquals(0, p.b().ep().recv(r, null, Fi.FI_ADDR_UNSPEC, "r"), "b's receive");
            // larger than the inline size (64): inline sends take no registration at all
            ByteBuffer one = filled(256, (byte) 1);
            ByteBuffer two = filled(256, (byte) 2);
            Msg m = new Msg().iov(0, one, null).iov(1, two, null).iovCount(2).addr(p.a().peer()).context("both");
            assertEquals(-Errno.EINVAL, p.a().ep().sendMsg(m, Fi.FI_COMPLETION),
                    "two unregistered direct buffers in one send");
            MemoryRegion twoDesc = fx.register(two, Fi.FI_SEND, "two");
            m.iov(1, two, twoDesc);
            assertEquals(0, p.a().ep().sendMsg(m, Fi.FI_COMPLETION), "the same send with the second registered");
            CqEntry[] e = {new CqEntry()};
            fx.await().until(() -> p.b().rxCq().read(e, 1) == 1, "b's receive of the accepted send");
            assertEquals(512, e[0].len(), "only the accepted send arrived, whole");
            assertEquals(1, r.get(255));
            assertEquals(2, r.get(256));
            fx.await().until(() -> p.a().txCq().read(e, 1) == 1, "the send's completion");
            assertEquals("both", e[0].context());
        }
    }

    @ParameterizedTest
    @EnumSource(value = EpType.class, names = {"MSG"})
    void aSecondHeapBufferReadIntoIsRefused(EpType type) throws FabricException {
        try (ConformanceFixture fx = new ConformanceFixture(Fabrics.standalone(), "verbs", type, Progress.AUTO,
                TIMEOUT_MS)) {
            EndpointPair p = fx.openPair(new PairSpec(Fi.FI_RMA | Fi.FI_READ | Fi.FI_REMOTE_READ));
            ByteBuffer target = filled(16, (byte) 7);
            MemoryRegion mr = fx.register(target, Fi.FI_REMOTE_READ, "target");
            ByteBuffer h1 = ByteBuffer.allocate(8);
            ByteBuffer h2 = ByteBuffer.allocate(8);
            RmaMsg m = new RmaMsg();
            m.iov(0, h1, null).iov(1, h2, null).iovCount(2).addr(p.a().peer()).context("read");
            m.rma(mr.address(), 16, mr.key());
            assertEquals(-Errno.EMSGSIZE, p.a().ep().readMsg(m, Fi.FI_COMPLETION), "two heap buffers read into");
            RmaMsg one = new RmaMsg();
            ByteBuffer h = ByteBuffer.allocate(16);
            one.buffer(h, null).addr(p.a().peer()).context("one");
            one.rma(mr.address(), 16, mr.key());
            assertEquals(0, p.a().ep().readMsg(one, Fi.FI_COMPLETION), "one heap buffer read into");
            CqEntry[] e = {new CqEntry()};
            fx.await().until(() -> p.a().txCq().read(e, 1) == 1, "the read's completion");
            assertEquals("one", e[0].context(), "the refused read left no completion");
            assertEquals(7, h.get(15));
        }
    }

    /** Three times the registration cache's size of receives posted and canceled before the connection: none stays held. */
    @Test
    void canceledReceivesWaitingForTheQueuePairGiveTheirRegistrationBack() throws FabricException {
        try (ConformanceFixture fx = new ConformanceFixture(Fabrics.standalone(), "verbs", EpType.MSG, Progress.AUTO,
                TIMEOUT_MS)) {
            Info info = fx.require(Fi.FI_MSG);
            EventQueue eq = fx.openEq(new EqAttr(), "eq");
            CompletionQueue cq = fx.openCq(new CqAttr(), "cq");
            Endpoint ep = fx.openEndpoint(info, "ep");
            ep.bind(eq, 0);
            ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            ep.enable();
            CqEntry[] e = {new CqEntry()};
            CqErrEntry err = new CqErrEntry();
            ByteBuffer[] keep = new ByteBuffer[96]; // distinct buffers, each a new cache entry
            for (int i = 0; i < keep.length; i++) {
                keep[i] = ByteBuffer.allocateDirect(64);
                Object ctx = "r" + i;
                assertEquals(0, ep.recv(keep[i], null, Fi.FI_ADDR_UNSPEC, ctx), "receive " + i + " (not connected yet)");
                assertEquals(0, ep.cancel(ctx), "cancel " + i);
                assertEquals(-Errno.EAVAIL, cq.read(e, 1), "receive " + i + "'s ECANCELED completion");
                assertEquals(1, cq.readErr(err, 0));
                assertEquals(Errno.ECANCELED, err.err());
                assertEquals(ctx, err.context());
            }
        }
    }

    private static ByteBuffer filled(int n, byte v) {
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        for (int i = 0; i < n; i++) {
            b.put(i, v);
        }
        return b;
    }
}
