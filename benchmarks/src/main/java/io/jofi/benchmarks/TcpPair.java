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
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Fid;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.PassiveEndpoint;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Two endpoints of the {@code tcp} provider talking over 127.0.0.1 in one JVM, opened through
 * the public API only ({@link Fabrics#standalone()}, as an application would): a connected MSG
 * pair ({@code FI_CONNREQ} → accept → {@code FI_CONNECTED} on both sides, fi_cm(3)) or an RDM
 * pair that know each other through their AVs and whose connection is made by a first
 * exchange in each direction. Both endpoints live in one domain with {@code FI_PROGRESS_MANUAL}
 * data progress, so every CQ read of either side runs one progress pass over both sockets —
 * the single-thread busy-polling pattern of {@code TcpAllocationTest} and the latency mode of
 * the benchmarks. Side {@code b} owns a 64 KiB region registered {@code FI_REMOTE_WRITE} for
 * RMA writes from {@code a}.
 *
 * <p>Every wait here and in {@link #await} is bounded ({@link #TIMEOUT_NS}): a peer that is gone
 * fails the caller with {@link IllegalStateException} instead of spinning forever.
 */
final class TcpPair implements AutoCloseable {
    /** How long any single wait may take before the pair is declared broken (a loopback hand-off takes µs). */
    static final long TIMEOUT_NS = 5_000_000_000L;
    /** Caps both sides ask for: messages, tagged messages, RMA writes into b's region. */
    static final long CAPS = Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA | Fi.FI_WRITE | Fi.FI_REMOTE_WRITE;
    /** Size of b's registered region. */
    static final int REGION_SIZE = 64 * 1024;

    final EpType type;
    final Fabric fabric;
    final Domain domain;
    /** The initiator side and the target side. */
    Endpoint a;
    Endpoint b;
    /** Transmit and receive CQs of each side (separate, so each read knows what it takes). */
    final CompletionQueue aTx;
    final CompletionQueue aRx;
    final CompletionQueue bTx;
    final CompletionQueue bRx;
    /** Where a sends to reach b, and b to reach a: AV fi_addrs for RDM, FI_ADDR_UNSPEC for MSG. */
    long bFromA = Fi.FI_ADDR_UNSPEC;
    long aFromB = Fi.FI_ADDR_UNSPEC;
    /** b's region, target of a's RMA writes. */
    MemoryRegion region;

    /** Everything opened, closed in reverse order. */
    private final List<Fid> opened = new ArrayList<>();
    private final CqErrEntry errEntry = new CqErrEntry();

    /**
     * Opens and connects the pair.
     *
     * @param type {@link EpType#MSG} or {@link EpType#RDM}
     * @throws FabricException when the tcp provider is missing or a step of the set-up fails;
     *         whatever was opened is closed again
     */
    TcpPair(EpType type) throws FabricException {
        this.type = type;
        Info hints = new Info().caps(CAPS);
        hints.epAttr().type(type);
        hints.domainAttr().dataProgress(Progress.MANUAL);
        hints.fabricAttr().provName("tcp");
        Fabrics fabrics = Fabrics.standalone();
        Info info = fabrics.getInfo("127.0.0.1", "0", Fi.FI_SOURCE, hints).get(0);
        fabric = fabrics.fabric(info.fabricAttr(), null);
        opened.add(fabric);
        try {
            domain = open(fabric.domain(info, null));
            aTx = open(domain.openCq(new CqAttr().format(CqFormat.TAGGED), "a-tx"));
            aRx = open(domain.openCq(new CqAttr().format(CqFormat.TAGGED), "a-rx"));
            bTx = open(domain.openCq(new CqAttr().format(CqFormat.TAGGED), "b-tx"));
            bRx = open(domain.openCq(new CqAttr().format(CqFormat.TAGGED), "b-rx"));
            if (type == EpType.MSG) {
                connectMsg(info);
            } else {
                introduceRdm(info);
            }
            ByteBuffer target = ByteBuffer.allocateDirect(REGION_SIZE);
            region = open(domain.register(target, Fi.FI_REMOTE_WRITE, 0, 0, 0, "b-region"));
            exchangeOnce();
        } catch (FabricException | RuntimeException e) {
            closeQuietly(e);
            throw e;
        }
    }

    private <T extends Fid> T open(T fid) {
        opened.add(fid);
        return fid;
    }

    private void bindCqs(Endpoint ep, CompletionQueue tx, CompletionQueue rx) throws FabricException {
        ep.bind(tx, Fi.FI_TRANSMIT);
        ep.bind(rx, Fi.FI_RECV);
    }

    /** fi_cm(3): a connects to b's passive endpoint, b is opened from the FI_CONNREQ and accepts. */
    private void connectMsg(Info info) throws FabricException {
        EventQueue pepEq = open(fabric.openEq(new EqAttr(), "pep-eq"));
        EventQueue aEq = open(fabric.openEq(new EqAttr(), "a-eq"));
        EventQueue bEq = open(fabric.openEq(new EqAttr(), "b-eq"));
        PassiveEndpoint pep = open(fabric.passiveEndpoint(info, "pep"));
        pep.bind(pepEq, 0);
        pep.listen();
        a = open(domain.endpoint(info, "a"));
        a.bind(aEq, 0);
        bindCqs(a, aTx, aRx);
        a.enable();
        a.connect(pep.getName(), null);
        EqEntry req = awaitEvent(pepEq, Fi.FI_CONNREQ);
        b = open(domain.endpoint(req.info(), "b"));
        b.bind(bEq, 0);
        bindCqs(b, bTx, bRx);
        b.enable();
        b.accept(null);
        awaitEvent(bEq, Fi.FI_CONNECTED);
        awaitEvent(aEq, Fi.FI_CONNECTED);
    }

    /** Two RDM endpoints, each with its own AV holding the other's name. */
    private void introduceRdm(Info info) throws FabricException {
        AddressVector aAv = open(domain.openAv(new AvAttr(), "a-av"));
        AddressVector bAv = open(domain.openAv(new AvAttr(), "b-av"));
        a = open(domain.endpoint(info, "a"));
        a.bind(aAv, 0);
        bindCqs(a, aTx, aRx);
        a.enable();
        b = open(domain.endpoint(info, "b"));
        b.bind(bAv, 0);
        bindCqs(b, bTx, bRx);
        b.enable();
        bFromA = insert(aAv, b.getName());
        aFromB = insert(bAv, a.getName());
    }

    private static long insert(AddressVector av, byte[] name) throws FabricException {
        long[] fiAddr = {Fi.FI_ADDR_NOTAVAIL};
        int rc = av.insert(new byte[][] {name}, fiAddr, 0, null);
        if (rc != 1 || fiAddr[0] == Fi.FI_ADDR_NOTAVAIL) {
            throw new FabricException(rc < 0 ? -rc : Errno.EINVAL, "av insert of the peer's name returned " + rc);
        }
        return fiAddr[0];
    }

    /** One message each way, so that RDM's first-use connection exists before anything is timed. */
    private void exchangeOnce() {
        ByteBuffer buf = ByteBuffer.allocateDirect(64);
        CqEntry[] entries = {new CqEntry()};
        check(b.recv(buf, null, Fi.FI_ADDR_UNSPEC, "warm"), "recv");
        check(a.send(buf, null, bFromA, "warm"), "send");
        await(bRx, entries);
        await(aTx, entries);
        check(a.recv(buf, null, Fi.FI_ADDR_UNSPEC, "warm"), "recv");
        check(b.send(buf, null, aFromB, "warm"), "send");
        await(aRx, entries);
        await(bTx, entries);
    }

    /** A post's return code must be 0 (fi_msg(3) etc.: a negative errno otherwise). */
    static void check(int rc, String op) {
        if (rc != 0) {
            throw new IllegalStateException(op + " returned " + rc + " (" + Errno.strerror(rc) + ")");
        }
    }

    /**
     * Reads exactly one completion of {@code cq} into {@code entries[0]}, busy-polling (each read
     * is a manual progress pass). Fails on an error completion (its errno in the message), on
     * any return other than 1 or {@code -EAGAIN}, and when nothing arrives within
     * {@link #TIMEOUT_NS}. The clock is read only after 1024 empty polls, so a completion that
     * arrives at once costs no {@code nanoTime}.
     */
    void await(CompletionQueue cq, CqEntry[] entries) {
        long deadline = 0;
        int spins = 0;
        while (true) {
            int rc = cq.read(entries, 1);
            if (rc == 1) {
                return;
            }
            if (rc != -Errno.EAGAIN) {
                throw failure(cq, rc);
            }
            if ((++spins & 1023) == 0) {
                if (spins == 1024) {
                    deadline = System.nanoTime() + TIMEOUT_NS;
                } else if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(type + " pair: no completion on " + name(cq) + " within "
                            + TIMEOUT_NS / 1_000_000 + " ms: the peer is gone or stalled");
                }
            }
        }
    }

    /** The CQ's role, for failure messages. */
    private String name(CompletionQueue cq) {
        return cq == aTx ? "a-tx" : cq == aRx ? "a-rx" : cq == bTx ? "b-tx" : cq == bRx ? "b-rx" : String.valueOf(cq);
    }

    private IllegalStateException failure(CompletionQueue cq, int rc) {
        if (rc == -Errno.EAVAIL && cq.readErr(errEntry, 0) == 1) {
            return new IllegalStateException(type + " pair: error completion on " + name(cq) + ": "
                    + Errno.strerror(errEntry.err()) + " (context " + errEntry.context() + ")");
        }
        return new IllegalStateException(type + " pair: cq read on " + name(cq) + " returned " + rc + " ("
                + Errno.strerror(rc) + ")");
    }

    /** Reads one event of {@code eq}, which must be {@code event}; bounded by {@link #TIMEOUT_NS}. */
    private static EqEntry awaitEvent(EventQueue eq, int event) throws FabricException {
        EqEntry e = new EqEntry();
        long deadline = System.nanoTime() + TIMEOUT_NS;
        while (true) {
            int rc = eq.read(e, 0);
            if (rc == 1) {
                if (e.event() != event) {
                    throw new FabricException(Errno.EIO, "expected event " + event + ", got " + e.event());
                }
                return e;
            }
            if (rc == -Errno.EAVAIL) {
                EqErrEntry err = new EqErrEntry();
                eq.readErr(err, 0);
                throw new FabricException(err.err(), "expected event " + event + ", got error event "
                        + Errno.strerror(err.err()));
            }
            if (rc != -Errno.EAGAIN) {
                throw new FabricException(-rc, "eq read returned " + rc);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new FabricException(Errno.ETIMEDOUT, "no event " + event + " within " + TIMEOUT_NS / 1_000_000
                        + " ms");
            }
            Thread.onSpinWait();
        }
    }

    private void closeQuietly(Throwable cause) {
        try {
            close();
        } catch (FabricException e) {
            cause.addSuppressed(e);
        }
    }

    /** Closes everything in reverse order of opening; the first failure is thrown after the rest are closed. */
    @Override
    public void close() throws FabricException {
        FabricException first = null;
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (FabricException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        opened.clear();
        if (first != null) {
            throw first;
        }
    }
}
