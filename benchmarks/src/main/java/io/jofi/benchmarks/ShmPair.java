package io.jofi.benchmarks;

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
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.Info;
import io.jofi.Progress;
import java.util.ArrayList;
import java.util.List;

/**
 * Two RDM endpoints A and B of the {@code shm} provider in this JVM for the shm JMH
 * benchmarks: each with its own fabric, domain, transmit and receive CQs ({@code FI_CQ_FORMAT_MSG})
 * and AV, found through {@link Fabrics#standalone()} (the provider's {@code ServiceLoader}
 * entry) with {@code FI_PROGRESS_MANUAL}, so the benchmark thread's CQ reads drive both
 * endpoints' progress (fi_cq(3): manual progress is made by reading the CQ) and nothing else
 * runs. A has B in its AV at {@link #toB}; B has A in its AV only when asked ({@code mutual}):
 * a receiver that does not know the sender is the RDM server's first case and costs the
 * provider a failed source lookup per message. Nothing here allocates after construction.
 */
final class ShmPair implements AutoCloseable {
    /** Completions the CQs hold; enough for a window of 64 plus its sends. */
    static final int CQ_SIZE = 256;
    /** A bound on every wait, so a broken provider fails the run instead of hanging it. */
    private static final long WAIT_NANOS = 10_000_000_000L;

    final Side a;
    final Side b;
    final long toB;
    /** Inject size of A's transmit context. */
    final long injectSize;
    private final CqEntry[] entries;
    private final CqEntry[] none = new CqEntry[0];
    private final CqErrEntry error = new CqErrEntry();

    /** One endpoint with everything it needs, closed in reverse order of opening. */
    static final class Side implements AutoCloseable {
        private final List<Fid> opened = new ArrayList<>();
        final CompletionQueue txCq;
        final CompletionQueue rxCq;
        final AddressVector av;
        final Endpoint ep;

        Side(Info info) throws FabricException {
            try {
                Fabric fabric = track(Fabrics.standalone().fabric(info.fabricAttr(), null));
                Domain domain = track(fabric.domain(info, null));
                txCq = track(domain.openCq(new CqAttr().size(CQ_SIZE).format(CqFormat.MSG), null));
                rxCq = track(domain.openCq(new CqAttr().size(CQ_SIZE).format(CqFormat.MSG), null));
                av = track(domain.openAv(new AvAttr(), null));
                ep = track(domain.endpoint(info, null));
                ep.bind(txCq, Fi.FI_TRANSMIT);
                ep.bind(rxCq, Fi.FI_RECV);
                ep.bind(av, 0);
                ep.enable();
            } catch (FabricException | RuntimeException e) {
                close();
                throw e;
            }
        }

        private <T extends Fid> T track(T fid) {
            opened.add(fid);
            return fid;
        }

        @Override
        public void close() {
            for (int i = opened.size() - 1; i >= 0; i--) {
                try {
                    opened.get(i).close();
                } catch (FabricException | RuntimeException e) {
                    System.err.println("ShmPair: closing " + opened.get(i) + ": " + e);
                }
            }
            opened.clear();
        }
    }

    /**
     * Opens both endpoints.
     *
     * @param maxReap the most completions one {@link #reap} call is asked for
     * @param mutual  whether B's AV holds A too (else A is unknown to B)
     * @throws IllegalStateException when there is no shm provider on the class path
     */
    ShmPair(int maxReap, boolean mutual) throws FabricException {
        Info info = shmInfo();
        injectSize = info.txAttr().injectSize();
        a = new Side(info);
        Side opened = null;
        try {
            opened = new Side(info);
            long[] fi = {Fi.FI_ADDR_NOTAVAIL};
            if (a.av.insert(new byte[][] {opened.ep.getName()}, fi, 0, null) != 1) {
                throw new IllegalStateException("cannot insert B's address into A's AV");
            }
            toB = fi[0];
            if (mutual && opened.av.insert(new byte[][] {a.ep.getName()}, fi, 0, null) != 1) {
                throw new IllegalStateException("cannot insert A's address into B's AV");
            }
        } catch (FabricException | RuntimeException e) {
            if (opened != null) {
                opened.close();
            }
            a.close();
            throw e;
        }
        b = opened;
        entries = new CqEntry[maxReap];
        for (int i = 0; i < maxReap; i++) {
            entries[i] = new CqEntry();
        }
    }

    /**
     * The shm provider's first RDM {@code FI_MSG} info with manual data progress.
     *
     * @throws IllegalStateException when there is no shm provider on the class path
     */
    static Info shmInfo() {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.RDM);
        hints.fabricAttr().provName("shm");
        hints.domainAttr().dataProgress(Progress.MANUAL);
        try {
            return Fabrics.standalone().getInfo(null, null, 0, hints).get(0);
        } catch (FabricException e) {
            throw new IllegalStateException("no shm provider on the class path (benchmarks.jar needs provider-shm "
                    + "with io.jofi.provider.shm.ShmProvider): " + e.getMessage(), e);
        }
    }

    /** Fails unless {@code rc} is 0. */
    static void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " returned " + rc + " (" + Errno.strerror(-rc) + ")");
        }
    }

    /** After a post returned {@code rc}: {@code -EAGAIN} drives both sides' progress once; anything else fails. */
    void retry(int rc, String what) {
        if (rc != -Errno.EAGAIN) {
            check(rc, what);
        }
        a.txCq.read(none, 0);
        b.rxCq.read(none, 0);
    }

    /** Reads {@code count} completions from {@code cq}, driving {@code other}'s progress too; bounded. */
    void reap(CompletionQueue cq, CompletionQueue other, int count) {
        int got = 0;
        long spins = 0;
        long start = 0;
        while (got < count) {
            int rc = cq.read(entries, count - got);
            if (rc > 0) {
                got += rc;
                continue;
            }
            if (rc == -Errno.EAVAIL) {
                cq.readErr(error, 0);
                throw new IllegalStateException("error completion: " + Errno.strerror(error.err()));
            }
            if (rc != -Errno.EAGAIN) {
                check(rc, "cq read");
            }
            other.read(none, 0);
            if ((++spins & 0xFFFF) == 0) {
                long now = System.nanoTime();
                if (start == 0) {
                    start = now;
                } else if (now - start > WAIT_NANOS) {
                    throw new IllegalStateException("no completion within 10 s (" + got + " of " + count + ")");
                }
            }
        }
    }

    @Override
    public void close() {
        a.close();
        b.close();
    }
}
