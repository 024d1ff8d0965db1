package io.jofi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import java.nio.ByteBuffer;

/**
 * Two RDM endpoints A and B of one provider in this framework — fabric, domain, one CQ each,
 * a shared AV holding both — as the hot-swap tests use them: A sends B numbered 8-byte
 * messages and B checks every one. Every wait is bounded ({@link #DEADLINE_MS}).
 */
final class RdmPair implements AutoCloseable {
    /** Bound on each completion wait. */
    static final long DEADLINE_MS = 10_000;

    final Fabric fabric;
    final Domain domain;
    final CompletionQueue aCq;
    final CompletionQueue bCq;
    final AddressVector av;
    final Endpoint a;
    final Endpoint b;
    /** B's and A's fi_addr in the AV. */
    final long toB;
    final long toA;
    private final CqEntry[] one = {new CqEntry()};
    private final ByteBuffer in = ByteBuffer.allocateDirect(8);
    private final ByteBuffer out = ByteBuffer.allocateDirect(8);

    /** Opens the pair on {@code info} (an RDM info of the provider under test). */
    RdmPair(Fabrics fabrics, Info info) throws FabricException {
        assertNotNull("the info names its provider", info.fabricAttr().provName());
        fabric = fabrics.fabric(info.fabricAttr(), null);
        domain = fabric.domain(info, null);
        aCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), null);
        bCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), null);
        av = domain.openAv(new AvAttr(), null);
        a = open(info, aCq);
        b = open(info, bCq);
        long[] fi = {Fi.FI_ADDR_NOTAVAIL};
        assertEquals(1, av.insert(new byte[][] {b.getName()}, fi, 0, null));
        toB = fi[0];
        assertEquals(1, av.insert(new byte[][] {a.getName()}, fi, 0, null));
        toA = fi[0];
    }

    private Endpoint open(Info info, CompletionQueue cq) throws FabricException {
        Endpoint ep = domain.endpoint(info, null);
        ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        ep.bind(av, 0);
        ep.enable();
        return ep;
    }

    /**
     * A sends B the numbers {@code first}, {@code first + 1}, … ({@code n} of them), one at a
     * time: B's receive posted, A's send, both completions read, the number checked.
     *
     * @return the number after the last one sent
     */
    long exchange(long first, int n) {
        long next = first;
        for (int i = 0; i < n; i++) {
            in.clear();
            assertEquals(0, b.recv(in, null, Fi.FI_ADDR_UNSPEC, "r"));
            out.putLong(0, next);
            assertEquals(0, a.send(out, null, toB, "s"));
            take(bCq, "r");
            assertEquals(8, one[0].len());
            take(aCq, "s");
            assertEquals(next, in.getLong(0));
            next++;
        }
        return next;
    }

    private void take(CompletionQueue cq, Object ctx) {
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        int rc;
        while ((rc = cq.read(one, 1)) != 1) {
            if (rc == -Errno.EAVAIL) {
                CqErrEntry e = new CqErrEntry();
                cq.readErr(e, 0);
                fail("error completion " + Errno.name(e.err()) + " for " + e.context());
            }
            assertEquals(-Errno.EAGAIN, rc);
            assertTrue("no completion " + ctx + " within " + DEADLINE_MS + " ms", System.currentTimeMillis() < deadline);
            Thread.onSpinWait();
        }
        assertEquals(ctx, one[0].context());
    }

    @Override
    public void close() throws FabricException {
        a.close();
        b.close();
        av.close();
        aCq.close();
        bCq.close();
        domain.close();
        fabric.close();
    }
}
