package io.jofi.provider.tcp;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.provider.tcp.wire.TcpRdmHelloDescriptor;
import io.jofi.spi.util.ReceiveQueue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The peers of a tcp RDM endpoint and their connections: finds or opens the connection for an
 * {@code fi_addr} (an array lookup by the fi_addr's slot on the data path), accepts a peer's
 * request unless it crosses a connection of ours that wins, parks sends that lost a crossed
 * connect and retries them, promotes a standby connection when the one in use goes down, and
 * closes the connections of peers removed from the AV (README "RDM endpoints"). Guarded by the
 * endpoint's lock.
 */
final class TcpRdmPeers {
    /** fi_addr → peer cache covers slots below this; beyond, the AV lookup allocates a key. */
    private static final int MAX_CACHED_SLOT = 1 << 20;

    private final TcpRdmEndpoint endpoint;
    private final TcpDomain domain;
    private final Info info;
    private final DataPathBindings bound;
    private final ReceiveQueue queue;
    private final int queueSize;

    private final Map<RdmPeer, RdmPeer> byName = new HashMap<>();
    private final List<RdmPeer> peers = new ArrayList<>();
    /** fi_addr cache, indexed by the fi_addr's slot (its low 32 bits): no allocation per operation. */
    private long[] cachedAddr = new long[16];
    private RdmPeer[] cachedPeer = new RdmPeer[16];
    /** The connection {@link #target} chose, its peer, and whether it created it (then it still has to connect). */
    TcpConnection target;
    private RdmPeer targetPeer;
    private boolean targetFresh;
    /** Peers whose sends are parked (crossed-connect reject); read without the lock by {@link #checkParked}. */
    private volatile int parkedCount;

    TcpRdmPeers(TcpRdmEndpoint endpoint, TcpDomain domain, Info info, DataPathBindings bound, ReceiveQueue queue) {
        this.endpoint = endpoint;
        this.domain = domain;
        this.info = info;
        this.bound = bound;
        this.queue = queue;
        this.queueSize = TcpConnection.queueSize(info);
        Arrays.fill(cachedAddr, Fi.FI_ADDR_NOTAVAIL);
    }

    private TcpConnection newConnection(RdmPeer p) {
        // both ends of an RDM connection are JOFI (the hello), from the first operation on
        return new TcpConnection(domain, info, endpoint, new RdmConnectionRole(endpoint, this, p), bound, queue,
                queueSize, true);
    }

    // =================================================================== the data path's connection

    /**
     * Picks the connection for {@code dest} into {@link #target} (creating it, unconnected, on
     * first use).
     *
     * @return 0, or {@code -EINVAL} ({@code dest} is not in the AV)
     */
    int target(long dest, TcpAddressVector av) {
        RdmPeer p = null;
        long slot = dest & 0xFFFF_FFFFL;
        if (dest >= 0 && slot < cachedAddr.length && cachedAddr[(int) slot] == dest) {
            p = cachedPeer[(int) slot];
        }
        if (p == null) {
            byte[] addr = av.addressOf(dest);
            if (addr == null) {
                return -Errno.EINVAL;
            }
            p = peerNamed(addr);
            if (dest >= 0 && slot < MAX_CACHED_SLOT) {
                cache((int) slot, dest, p);
            }
        }
        TcpConnection c = p.conn;
        targetFresh = false;
        if (c == null) {
            c = newConnection(p);
            p.conn = c;
            p.active = true;
            targetFresh = true;
        }
        target = c;
        targetPeer = p;
        return 0;
    }

    private void cache(int slot, long dest, RdmPeer p) {
        if (slot >= cachedAddr.length) {
            int n = Math.max(slot + 1, cachedAddr.length * 2);
            int old = cachedAddr.length;
            cachedAddr = Arrays.copyOf(cachedAddr, n);
            Arrays.fill(cachedAddr, old, n, Fi.FI_ADDR_NOTAVAIL);
            cachedPeer = Arrays.copyOf(cachedPeer, n);
        }
        cachedAddr[slot] = dest;
        cachedPeer[slot] = p;
    }

    /** The peer of that name, created on first sight. */
    private RdmPeer peerNamed(byte[] peerName) {
        RdmPeer probe = new RdmPeer(peerName);
        RdmPeer p = byName.get(probe);
        if (p == null) {
            p = probe;
            byName.put(p, p);
            peers.add(p);
        }
        return p;
    }

    /**
     * After an operation was handed to {@link #target}: a connection created for it starts
     * connecting now (the operation is queued first, so even a connect refused at once fails it
     * with an error completion rather than losing it).
     */
    int launched(int rc, byte[] hello) {
        TcpConnection c = target;
        RdmPeer p = targetPeer;
        target = null;
        targetPeer = null;
        if (targetFresh) {
            targetFresh = false;
            if (rc < 0) {
                // refused (PostChecks, a full CQ): nothing was queued, so no connection is
                // opened either — a refused call changes nothing
                if (p.conn == c) {
                    p.conn = null;
                    p.active = false;
                }
                return rc;
            }
            try {
                c.connect(p.name, hello);
            } catch (FabricException e) {
                if (p.conn == c) {
                    p.conn = null;
                }
                c.fail(e.errno() > 0 ? e.errno() : Errno.EIO);
            }
        }
        return rc;
    }

    // =================================================================== connection outcomes

    /**
     * A connection's connect failed (its socket closed, its queued sends kept): a
     * crossed-connect reject parks them for the peer's connection; anything else fails them
     * with {@code err}.
     */
    void connectFailed(TcpConnection c, RdmPeer p, int err, byte[] errData, int errDataSize) {
        if (p.conn == c && errData != null
                && TcpRdmHelloDescriptor.kind(errData, errDataSize) == TcpRdmHelloDescriptor.KIND_REJECT_CROSSED) {
            c.park();
            p.parkedAt = System.nanoTime();
            parkedCount++;
            return;
        }
        if (p.conn == c) {
            p.conn = null;
        }
        c.fail(err == Errno.ENOPROTOOPT ? Errno.ECONNREFUSED : err);
    }

    /**
     * CM loop, after every pass: sends parked longer than {@link TcpRdmEndpoint#PARK_RETRY_NANOS}
     * move to a new connection of ours (the peer's connection never came).
     */
    void checkParked(boolean enabled, byte[] hello) {
        if (parkedCount == 0) {
            return;
        }
        long now = System.nanoTime();
        int still = 0;
        for (int i = 0, n = peers.size(); i < n; i++) {
            RdmPeer p = peers.get(i);
            TcpConnection c = p.conn;
            if (c == null || !c.isParked()) {
                continue;
            }
            if (now - p.parkedAt < TcpRdmEndpoint.PARK_RETRY_NANOS || !enabled) {
                still++;
                continue;
            }
            TcpConnection fresh = newConnection(p);
            p.conn = fresh;
            p.active = true;
            c.moveQueuedSendsTo(fresh);
            target = fresh;
            targetPeer = p;
            targetFresh = true;
            launched(0, hello);
        }
        parkedCount = still;
    }

    /** Whether sends are parked somewhere (read without the lock). */
    boolean anyParked() {
        return parkedCount != 0;
    }

    /** A connection went down (its operations failed already): forget it; a standby takes over. */
    void connectionDown(TcpConnection c, RdmPeer p) {
        if (p.standby == c) {
            p.standby = null;
        }
        if (p.conn == c) {
            p.conn = p.standby;
            p.active = false;
            p.standby = null;
        }
    }

    /**
     * The listener read a peer's request with its hello: accept it as the connection to that
     * peer, unless it crosses a connection of ours that wins.
     */
    void incoming(RdmIncoming in, byte[] peerName, byte[] name, byte[] hello) {
        RdmPeer p = peerNamed(peerName);
        TcpConnection old = p.conn;
        if (old != null && !old.isUp()) {
            old = null;
        }
        if (old != null && p.active && RdmPeer.compare(name, peerName) < 0 && !old.isEstablished()) {
            // Crossed connects: ours (initiated by the lower name) is kept.
            in.reject(TcpRdmHelloDescriptor.KIND_REJECT_CROSSED);
            return;
        }
        TcpConnection c = newConnection(p);
        try {
            c.accept(in.channel, in.key, hello, hello.length, true); // an RDM hello comes from JOFI only
        } catch (FabricException e) {
            in.close();
            return;
        }
        if (old != null && Arrays.equals(name, peerName)) {
            // A send to itself (FI_LOCAL_COMM): both ends of one socket are this endpoint's; the
            // initiating end sends, the accepted end receives.
            p.standby = c;
        } else if (old == null) {
            p.conn = c;
            p.active = false;
        } else if (!old.isEstablished()) {
            // Ours crosses the peer's and loses (or waits for it): hand its queued sends over.
            p.conn = c;
            p.active = false;
            old.moveQueuedSendsTo(c);
        } else {
            // The peer connects again while ours looks established: it reconnects after losing
            // the old one, or this is the late request of crossed connects. Keep both; sends
            // stay on the old one until it goes down (connectionDown promotes this one).
            TcpConnection previous = p.standby;
            p.standby = c;
            if (previous != null) {
                previous.fail(Errno.ECONNRESET);
            }
        }
    }

    /** {@code fi_av_remove} took peers out of the bound AV: their connections close ({@code ECANCELED}). */
    void removed(byte[][] addrs) {
        Arrays.fill(cachedAddr, Fi.FI_ADDR_NOTAVAIL);
        Arrays.fill(cachedPeer, null);
        if (addrs == null) {
            return;
        }
        for (byte[] a : addrs) {
            if (a == null) {
                continue;
            }
            RdmPeer p = byName.get(new RdmPeer(a));
            if (p == null) {
                continue;
            }
            TcpConnection c = p.conn;
            TcpConnection s = p.standby;
            p.conn = null;
            p.standby = null;
            if (c != null) {
                c.fail(Errno.ECANCELED);
            }
            if (s != null) {
                s.fail(Errno.ECANCELED);
            }
        }
    }

    /** A receive was posted: connections that paused for want of one read on. */
    void resumeAll() {
        for (int i = 0, n = peers.size(); i < n; i++) {
            RdmPeer p = peers.get(i);
            if (p.conn != null) {
                p.conn.rx.resumeIfPaused();
            }
            if (p.standby != null) {
                p.standby.rx.resumeIfPaused();
            }
        }
    }

    // =================================================================== life cycle

    private List<TcpConnection> connections() {
        List<TcpConnection> all = new ArrayList<>();
        for (RdmPeer p : peers) {
            if (p.conn != null) {
                all.add(p.conn);
            }
            if (p.standby != null) {
                all.add(p.standby);
            }
        }
        return all;
    }

    /** Close: every connection discards what is pending without completions and is forgotten. */
    void discardAll() {
        for (TcpConnection c : connections()) {
            c.discard();
        }
        for (RdmPeer p : peers) {
            p.conn = null;
            p.standby = null;
        }
    }

    /** Departure (R15): every connection's pending operations fail with {@code err}. */
    void departAll(int err) {
        for (TcpConnection c : connections()) {
            c.depart(err);
        }
    }

    /** A connection waiting for its peer's crossed connection, or null (tests). */
    TcpConnection parked() {
        for (RdmPeer p : peers) {
            if (p.conn != null && p.conn.isParked()) {
                return p.conn;
            }
        }
        return null;
    }

    /** Connections not down (tests: reuse in both directions, one connection after crossed connects). */
    int connectionCount() {
        int n = 0;
        for (TcpConnection c : connections()) {
            if (c.isUp()) {
                n++;
            }
        }
        return n;
    }
}
