package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Threading;
import io.jofi.WaitObj;
import io.jofi.spi.util.UtilEndpoint;
import io.jofi.spi.util.stats.StatsCounter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * An endpoint's post counters are exact under {@code FI_THREAD_SAFE} (one writer
 * per counter): several threads post sends on one RDM endpoint at once — the first take the
 * transmit CQ's room (never read), the rest are refused with {@code -EAGAIN} — and the
 * endpoint's "sends posted" and "posts refused -EAGAIN" equal what the threads were answered,
 * to the unit. A counter updated by several posting threads outside the provider's lock loses
 * some of these updates. The same on a connected MSG endpoint, where the provider offers MSG
 * endpoints (its own funnels, not a layer's such as rxm's under RDM).
 */
public abstract class PostCountConformance extends ProviderTest {
    private static final int THREADS = 4;
    private static final int POSTS = 100_000;
    /** The MSG sender's transmit CQ: at most this many sends are accepted (it is never read). */
    private static final int MSG_TX_CQ = 16;

    @Test
    void concurrentPostsOnAnMsgEndpointAreCountedExactly() throws Exception {
        EndpointPair p = fx.openPair(new PairSpec(Fi.FI_MSG).type(EpType.MSG)
                .txCq(new CqAttr().size(MSG_TX_CQ).waitObj(WaitObj.NONE)));
        Assumptions.assumeTrue(p.a().info().domainAttr().threading() == Threading.SAFE, "provider " + provider()
                + "'s MSG domain is not FI_THREAD_SAFE: " + p.a().info().domainAttr().threading());
        // a receive for every send the transmit CQ's room lets through (a send that finds none
        // may end the connection where resource management is disabled: iWARP)
        ByteBuffer landing = ByteBuffer.allocateDirect(8);
        for (int i = 0; i < 2 * MSG_TX_CQ; i++) {
            int rc = p.b().ep().recv(landing.duplicate(), null, Fi.FI_ADDR_UNSPEC, null);
            assertEquals(0, rc, "receive " + i + " at side b: " + Errno.strerror(-rc));
        }
        long[] answers = postConcurrently(p.a().ep(), Fi.FI_ADDR_UNSPEC, postsPerThread());
        UtilEndpoint ep = (UtilEndpoint) p.a().ep();
        assertEquals(answers[0], counter(ep, "sends posted"), "sends posted by " + THREADS + " threads");
        assertEquals(answers[1], counter(ep, "posts refused -EAGAIN"), "-EAGAIN answers to " + THREADS + " threads");
    }

    @Test
    void concurrentPostsAreCountedExactly() throws Exception {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.RDM);
        hints.domainAttr().threading(Threading.SAFE);
        hints.fabricAttr().provName(provider());
        Info info = fabrics().getInfo(null, null, 0, hints).get(0);
        try (Fabric fabric = fabrics().fabric(info.fabricAttr(), null);
             Domain domain = fabric.domain(info, null);
             CompletionQueue cq = domain.openCq(new CqAttr().size(16).waitObj(WaitObj.NONE), null);
             AddressVector av = domain.openAv(new AvAttr().type(info.domainAttr().avType()), null);
             Endpoint sender = endpoint(domain, info, av, cq);
             Endpoint receiver = endpoint(domain, info, av, cq)) {
            long[] to = {Fi.FI_ADDR_NOTAVAIL};
            assertEquals(1, av.insert(new byte[][] {receiver.getName()}, to, 0, null));
            long[] answers = postConcurrently(sender, to[0], postsPerThread());
            long accepted = answers[0];
            long refused = answers[1];
            UtilEndpoint ep = (UtilEndpoint) sender;
            assertEquals(accepted, counter(ep, "sends posted"), "sends posted by " + THREADS + " threads");
            assertEquals(refused, counter(ep, "posts refused -EAGAIN"), "-EAGAIN answers to " + THREADS + " threads");
        }
    }

    /**
     * The sends each thread posts: {@value #POSTS} by default (a fraction of a second on the
     * host); a provider tested in an emulated machine (verbs in the TCG VM) may post fewer.
     */
    protected int postsPerThread() {
        return POSTS;
    }

    /**
     * {@link #THREADS} threads post {@code posts} sends each on {@code sender} at once (its
     * transmit CQ is never read); returns how many were accepted and how many refused with
     * {@code -EAGAIN}, both asserted to have come.
     */
    private static long[] postConcurrently(Endpoint sender, long dest, int posts) throws Exception {
        long[][] answers = new long[THREADS][2]; // per thread: accepted, -EAGAIN
        AtomicReference<String> unexpected = new AtomicReference<>();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long[] mine = answers[t];
            Thread th = new Thread(() -> {
                ByteBuffer payload = ByteBuffer.allocateDirect(8);
                try {
                    start.await();
                } catch (Exception e) {
                    unexpected.set(e.toString());
                    return;
                }
                for (int i = 0; i < posts; i++) {
                    int rc = sender.send(payload.duplicate(), null, dest, null);
                    if (rc == 0) {
                        mine[0]++;
                    } else if (rc == -Errno.EAGAIN) {
                        mine[1]++;
                    } else {
                        unexpected.set("send answered " + Errno.strerror(-rc));
                        return;
                    }
                }
            }, "poster-" + t);
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
        assertEquals(null, unexpected.get());
        long accepted = 0;
        long refused = 0;
        for (long[] a : answers) {
            accepted += a[0];
            refused += a[1];
        }
        assertTrue(accepted > 0 && refused > 0, "both answers came: " + accepted + ", " + refused);
        return new long[] {accepted, refused};
    }

    private static Endpoint endpoint(Domain domain, Info info, AddressVector av, CompletionQueue cq) throws Exception {
        Endpoint ep = domain.endpoint(info, null);
        ep.bind(av, 0);
        ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        ep.enable();
        return ep;
    }

    private static long counter(UtilEndpoint ep, String name) {
        for (StatsCounter c : ep.counters().counters()) {
            if (c.label().equals(ep.counters().owner() + ": " + name)) {
                return c.get();
            }
        }
        throw new AssertionError("no counter " + name + " in " + ep.counters().counters());
    }
}
