package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import java.nio.file.Path;
import java.util.function.IntSupplier;

/**
 * One shm endpoint in this JVM for provider tests: its own provider instance on a given region
 * directory, TAGGED-format CQs, an AV, and bounded waits that drive progress.
 */
final class ShmTestBed implements AutoCloseable {
    static final long WAIT_NANOS = 20_000_000_000L;

    final ShmProvider provider;
    final Fabric fabric;
    final Domain domain;
    final CompletionQueue txCq;
    final CompletionQueue rxCq;
    final AddressVector av;
    final Endpoint ep;
    private final CqEntry[] none = new CqEntry[0];

    ShmTestBed(Path dir, Progress progress) throws FabricException {
        this(dir, progress, 0, null);
    }

    /**
     * @param extraCaps caps beyond MSG, TAGGED, RMA, ATOMIC, SOURCE (e.g. FI_DIRECTED_RECV)
     * @param setup     run before enable (bind counters ...), or null
     */
    ShmTestBed(Path dir, Progress progress, long extraCaps, Setup setup) throws FabricException {
        this(dir, progress, extraCaps, null, null, 0, setup);
    }

    /** As above with getInfo's node, service and flags (e.g. {@code fi_shm://<name>} with FI_SOURCE: a chosen name). */
    ShmTestBed(Path dir, Progress progress, long extraCaps, String node, String service, long flags, Setup setup)
            throws FabricException {
        this(new ShmProvider().directory(dir), progress, extraCaps, node, service, flags, setup);
    }

    /** With a provider the caller configured (e.g. its CMA threshold). */
    ShmTestBed(ShmProvider configured, Progress progress) throws FabricException {
        this(configured, progress, 0, null, null, 0, null);
    }

    private ShmTestBed(ShmProvider configured, Progress progress, long extraCaps, String node, String service, long flags,
                       Setup setup) throws FabricException {
        provider = configured;
        Info hints = new Info().caps(Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_ATOMIC | Fi.FI_SOURCE | extraCaps);
        hints.epAttr().type(EpType.RDM);
        hints.domainAttr().dataProgress(progress);
        Info info = provider.getInfo(node, service, flags, hints).get(0);
        fabric = provider.fabric(info.fabricAttr(), null);
        domain = fabric.domain(info, null);
        txCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), null);
        rxCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), null);
        av = domain.openAv(new AvAttr(), null);
        ep = domain.endpoint(info, null);
        ep.bind(txCq, Fi.FI_TRANSMIT);
        ep.bind(rxCq, Fi.FI_RECV);
        ep.bind(av, 0);
        if (setup != null) {
            setup.run(this);
        }
        ep.enable();
    }

    /** A step before enable. */
    interface Setup {
        void run(ShmTestBed bed) throws FabricException;
    }

    /** This endpoint's address as text. */
    String name() throws FabricException {
        byte[] n = ep.getName();
        return new String(n, 0, n.length - 1, java.nio.charset.StandardCharsets.US_ASCII);
    }

    long insert(byte[] addr) {
        long[] fi = {Fi.FI_ADDR_NOTAVAIL};
        assertEquals(1, av.insert(new byte[][] {addr}, fi, 0, null), "av.insert");
        return fi[0];
    }

    /** Posts until it is not -EAGAIN (driving progress), bounded; fails unless 0. */
    void post(IntSupplier op, String what) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        int rc;
        while ((rc = op.getAsInt()) == -Errno.EAGAIN) {
            txCq.read(none, 0);
            rxCq.read(none, 0);
            if (System.nanoTime() > deadline) {
                fail(what + " kept returning -EAGAIN");
            }
        }
        if (rc != 0) {
            fail(what + " returned " + rc + " (" + Errno.strerror(-rc) + ")");
        }
    }

    /**
     * A hostile writer's claim of {@code n} bytes in a victim's ring, waiting (bounded) while
     * the ring is full: the victim must go on draining it ({@code written} records so far).
     */
    static int claimInto(RingLink hostile, int n, int written) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        int at;
        while ((at = hostile.claim(n)) < 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the victim stopped draining its ring after " + written + " records");
            }
            Thread.onSpinWait();
        }
        return at;
    }

    /** The next successful completion of {@code cq}, bounded. */
    CqEntry completion(CompletionQueue cq, String what) {
        CqEntry[] one = {new CqEntry()};
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (System.nanoTime() < deadline) {
            int rc = cq.read(one, 1);
            if (rc == 1) {
                return one[0];
            }
            if (rc == -Errno.EAVAIL) {
                CqErrEntry e = new CqErrEntry();
                cq.readErr(e, 0);
                fail(what + ": error completion " + e);
            }
            Thread.onSpinWait();
        }
        return fail("no completion for " + what + " within 20 s");
    }

    /** The next error completion of {@code cq}, bounded. */
    CqErrEntry error(CompletionQueue cq, String what) {
        CqEntry[] one = {new CqEntry()};
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (System.nanoTime() < deadline) {
            int rc = cq.read(one, 1);
            if (rc == -Errno.EAVAIL) {
                CqErrEntry e = new CqErrEntry();
                assertEquals(1, cq.readErr(e, 0));
                return e;
            }
            if (rc == 1) {
                fail(what + ": a success where an error was expected, context " + one[0].context());
            }
            Thread.onSpinWait();
        }
        return fail("no error completion for " + what + " within 20 s");
    }

    @Override
    public void close() throws FabricException {
        ep.close();
        av.close();
        txCq.close();
        rxCq.close();
        domain.close();
        fabric.close();
    }
}
