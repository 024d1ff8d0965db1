package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.EpType;
import io.jofi.Endpoint;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Msg;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Item 12 across processes: a receive posted into a read-only buffer is refused at post time
 * and so can never be blamed on the peer whose message would have landed in it. Side a is an
 * RDM endpoint here, side b a {@link RemotePeer} in a child JVM; after the refused receives
 * the child's plain and {@code FI_DELIVERY_COMPLETE} sends complete normally and the reverse
 * direction works (before, shm accepted the receive, failed the writing into it as the peer's
 * fault and failed the peer for good).
 */
public abstract class PostCheckCrossProcessConformance extends EndpointTest {
    private static final long CAPS = Fi.FI_MSG | Fi.FI_TAGGED;

    private RemotePeer remote;

    /** The child's data progress: by default the suite's, {@code AUTO} when that is unspecified. */
    protected Progress remoteProgress() {
        return progress() == Progress.UNSPEC ? Progress.AUTO : progress();
    }

    /** Extra JVM arguments of the child. */
    protected List<String> remoteJvmArgs() {
        return List.of();
    }

    @AfterEach
    void stopRemote() {
        if (remote != null) {
            remote.close();
            remote = null;
        }
    }

    private static void assertRemoteOk(String[] c, String ctx, String what) {
        assertEquals("C", c[0], what + ": " + String.join(" ", c));
        assertEquals(ctx, c[1], what + ": context");
    }

    /** Read-only receives are -EINVAL; the child is not failed: its later sends, both levels, and ours to it complete. */
    @Test
    void readOnlyReceiveDoesNotFailThePeer() throws Exception {
        Info info = fx.require(CAPS, 0, EpType.RDM);
        Endpoint ep = fx.openEndpoint(info, "ep-a");
        CompletionQueue txCq = fx.openCq(new CqAttr().format(CqFormat.TAGGED), "txcq-a");
        CompletionQueue rxCq = fx.openCq(new CqAttr().format(CqFormat.TAGGED), "rxcq-a");
        AddressVector av = fx.openAv(new AvAttr().type(info.domainAttr().avType()), "av-a");
        ep.bind(txCq, Fi.FI_TRANSMIT);
        ep.bind(rxCq, Fi.FI_RECV);
        ep.bind(av, 0);
        ep.enable();
        remote = new RemotePeer(fx.provider(), remoteProgress(), CAPS, remoteJvmArgs(), await().timeoutMs());
        long[] fi = {Fi.FI_ADDR_NOTAVAIL};
        assertEquals(1, av.insert(new byte[][] {remote.name()}, fi, 0, null), "av.insert of the child's name");
        long toRemote = fi[0];
        remote.peer(ep.getName());

        ByteBuffer ro = ByteBuffer.allocateDirect(64).asReadOnlyBuffer();
        assertEquals(-Errno.EINVAL, ep.recv(ro, null, ANY, "ro"), "recv into a read-only buffer");
        Msg m = new Msg().buffer(ro, null).addr(ANY).context("ro-msg");
        assertEquals(-Errno.EINVAL, ep.recvMsg(m, 0), "recvMsg into a read-only buffer");
        assertEquals(-Errno.EINVAL, ep.trecv(ro, null, ANY, 0, -1L, "ro-tagged"), "trecv into a read-only buffer");

        // the child's message meets the valid receive posted now
        ByteBuffer in = zeroed(64);
        post(() -> ep.recv(in, null, ANY, "in1"), "a valid recv");
        remote.ok("send c1 48 3");
        CqEntry r = await().completion(rxCq, new CqEntry(), "the child's message");
        assertEquals("in1", r.context(), "the child's message lands in the valid receive");
        assertEquals(48, r.len());
        assertPattern(in, 0, 48, 3, "the child's message");
        assertRemoteOk(remote.completions("tx", 1).get(0), "c1", "the child's send");

        // the child is not failed: a delivery-complete send of it completes too
        ByteBuffer in2 = zeroed(64);
        post(() -> ep.recv(in2, null, ANY, "in2"), "a second valid recv");
        remote.ok("send c2 64 9 dc");
        assertEquals("in2", await().completion(rxCq, new CqEntry(), "the child's delivery-complete message").context());
        assertPattern(in2, 0, 64, 9, "the child's delivery-complete message");
        assertRemoteOk(remote.completions("tx", 1).get(0), "c2", "the child's FI_DELIVERY_COMPLETE send");

        // and the reverse direction works
        remote.ok("recv back 64");
        post(() -> ep.send(pattern(32, 6), null, toRemote, "out"), "a send to the child");
        String[] c = remote.completions("rx", 1).get(0);
        assertRemoteOk(c, "back", "the child's receive");
        assertEquals(32, Long.parseLong(c[2]), "length at the child");
        assertEquals("OK", remote.ask("check back 32 6"), "contents at the child");
        assertEquals("out", await().completion(txCq, new CqEntry(), "our send to the child").context());
    }
}
