package io.jofi.provider.shm;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.provider.shm.ring.ProcessLiveness;
import io.jofi.provider.shm.ring.RingDescriptor;
import io.jofi.provider.shm.ring.SenderLiveness;
import io.jofi.spi.util.UtilAddressVector;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Keeps the endpoint's peers and watches them for life: finds or creates the {@link Peer}
 * behind an {@code fi_addr}, a name or a record's sender, maps its region on first use, flushes
 * what is queued towards each in the progress pass, confirms {@code FI_TRANSMIT_COMPLETE}
 * sends by a life check, and fails a peer that died, closed, stalled or misbehaved — with what
 * was pending towards it and from it, and nothing else.
 *
 * <p>When peers are looked at is {@link PeerLiveness}'s decision; this class makes the looks.
 * Runs under the endpoint's lock, except {@link #isAlive} (the ring's stall check, also under
 * it: it is called from the drain).
 */
final class ShmPeers implements SenderLiveness, ShmSenders {
    /** What the peers' progress pass and a peer's failure ask of the rest of the endpoint. */
    interface Owner {
        /** Publishes what fits of {@code p}'s queue into its ring; the work done ({@link ShmTransmitter#flush}). */
        int flush(Peer p);

        /** Whether FI_TRANSMIT_COMPLETE sends wait for a life check of their peers. */
        boolean awaitsLifeChecks();

        /** {@code p} was found alive after their publish: its FI_TRANSMIT_COMPLETE sends complete; how many. */
        int completeConfirmed(Peer p);

        /** {@code p} failed with {@code err}: the operations towards it and the receives it was filling end. */
        void failPending(Peer p, int err);

        /** Takes the records in the own ring up to its tail as of now ({@link ShmRingReader#drainPublishedBefore}). */
        void drainPublishedBefore();
    }

    /** Peers an endpoint keeps; records of further unknown senders are dropped (a hostile ring writer cannot grow it). */
    private static final int MAX_PEERS = 4096;

    private final Owner owner;
    private final ShmOwnRing own;
    private final ShmBindings bound;
    private final ShmPeerCounters counters;
    private final Path dir;
    /** When peers are looked at for life and progress (provider-shm/README.md "Failure model"). */
    private final PeerLiveness liveness;
    private Peer[] peers = new Peer[0];
    /** The sender of the last record (records come in runs from one sender). */
    private Peer lastPeer;
    // fi_addr → peer cache, validated by the identity of the AV's stored address (a hit allocates nothing)
    private final long[] destKeys = new long[64];
    private final byte[][] destAddrs = new byte[64][];
    private final Peer[] destPeers = new Peer[64];

    ShmPeers(Owner owner, ShmOwnRing own, ShmBindings bound, ShmPeerCounters counters, Path dir, PeerLiveness liveness) {
        this.owner = owner;
        this.own = own;
        this.bound = bound;
        this.counters = counters;
        this.dir = dir;
        this.liveness = liveness;
        Arrays.fill(destKeys, Fi.FI_ADDR_NOTAVAIL);
    }

    /** Every peer known (the array is replaced, never changed, when one is added: iterate it freely). */
    Peer[] all() {
        return peers;
    }

    // =================================================================== finding peers

    /**
     * The peer behind {@code fiAddr} in the bound AV, or null when it names nothing there.
     * Cached per fi_addr and validated by the identity of the AV's stored address, so a hit
     * allocates nothing.
     */
    Peer peerFor(long fiAddr) {
        UtilAddressVector a = bound.av;
        if (a == null) {
            return null;
        }
        byte[] addr = a.addressOf(fiAddr);
        if (addr == null) {
            return null;
        }
        int slot = (int) (fiAddr ^ (fiAddr >>> 32)) & 63;
        if (destKeys[slot] == fiAddr && destAddrs[slot] == addr) {
            Peer hit = destPeers[slot];
            if (hit.failed == 0) {
                return hit;
            }
            // failed: its name may name a new endpoint now (a re-bound name, peerNamed)
        }
        String n = ShmNames.nameOf(addr);
        if (n == null) {
            return null;
        }
        Peer p = peerNamed(n);
        destKeys[slot] = fiAddr;
        destAddrs[slot] = addr;
        destPeers[slot] = p;
        return p;
    }

    /**
     * The peer a name reaches: the newest peer known by it (as its canonical name or the name
     * it chose), unless that one is gone — its endpoint closed, its process died, or it failed
     * — and the name's link ({@link ShmAlias}) now names another endpoint: a name re-bound by a
     * new endpoint (a chosen name, or an own-form name its process took again,
     * {@link ShmNames#whyNotOwnName}). The new endpoint is a peer of its own (its canonical
     * name: fresh sequence, reassembly and registration-table state); the gone one is left to
     * {@link #checkLiveness}, which takes what it published and fails what waits on it. Runs on
     * the lookup's slow path only (a first lookup, a failed peer, or after a new sender showed
     * up, {@link #peerOf}): the link is read there (and for a peer not mapped yet), never per
     * operation.
     */
    private Peer peerNamed(String n) {
        Peer known = newest(n);
        if (known != null && known.link != null && !gone(known)) {
            return known;
        }
        // a chosen name, or an own-form one whose endpoint closed: the peer its records come from (pid and seq)
        String canonical = ShmAlias.resolve(dir, n);
        if (canonical != null && !canonical.equals(n) && (known == null || !canonical.equals(known.name))) {
            Peer p = newest(canonical);
            if (p == null) {
                p = newPeer(canonical);
            }
            p.alias(n);
            return p;
        }
        if (known != null) {
            return known; // gone, and nothing took its name: its operations fail as they did
        }
        return newPeer(n); // a name of another form is a valid address that reaches nobody (mapping fails)
    }

    /** The newest peer named {@code n} (a chosen name first: it stands for the latest endpoint that took it), or null. */
    private Peer newest(String n) {
        Peer byName = null;
        for (int i = peers.length - 1; i >= 0; i--) {
            Peer p = peers[i];
            if (n.equals(p.alias())) {
                return p;
            }
            if (byName == null && p.name.equals(n)) {
                byName = p;
            }
        }
        return byName;
    }

    /**
     * Whether {@code p} failed or its endpoint closed its region (the header's state word: no
     * system call; a process that died without closing is the liveness sweep's to find).
     */
    private static boolean gone(Peer p) {
        return p.failed != 0 || p.link != null && p.link.peerGone(true);
    }

    private Peer newPeer(String n) {
        boolean ours = ShmNames.isEndpointName(n);
        Peer p = new Peer(n, ours ? ShmNames.pidOf(n) : -1, ours ? ShmRecordDescriptor.seqOf(n) : 0);
        addPeer(p);
        return p;
    }

    /** The sender of a record ({@code pid}, {@code seq} from its header), or null when those name no endpoint. */
    @Override
    public Peer peerOf(long ppid, long pseq) {
        Peer last = lastPeer;
        if (last != null && last.pid == ppid && last.seq == pseq) {
            return last;
        }
        for (Peer p : peers) {
            if (p.pid == ppid && p.seq == pseq) {
                lastPeer = p;
                return p;
            }
        }
        if (ppid <= 0 || ppid > Integer.MAX_VALUE || (pseq >>> 32) == 0 || (pseq & 0xFFFFFFFFL) == 0
                || peers.length >= MAX_PEERS) {
            return null; // not a sender name, or more senders than any real use: dropped
        }
        Peer p = new Peer(ShmRecordDescriptor.name(ppid, pseq), ppid, pseq);
        addPeer(p);
        lastPeer = p;
        // a new endpoint may have taken the name of one that closed (ShmAlias): the next send to
        // any fi_addr looks its name up again (peerNamed) instead of reaching the closed region
        Arrays.fill(destKeys, Fi.FI_ADDR_NOTAVAIL);
        return p;
    }

    private void addPeer(Peer p) {
        Peer[] n = Arrays.copyOf(peers, peers.length + 1);
        n[peers.length] = p;
        peers = n;
    }

    /** Maps the peer's region on first use; false (and the peer failed) when it cannot be. */
    boolean linked(Peer p) {
        if (p.link != null) {
            return true;
        }
        if (p.failed != 0) {
            return false;
        }
        try {
            p.link = RingLink.map(dir, p.name);
            counters.linked(p);
            return true;
        } catch (IOException | RuntimeException e) {
            p.failed = Errno.EHOSTUNREACH;
            counters.unreachable(p, String.valueOf(e.getMessage()));
            return false;
        }
    }

    // =================================================================== the progress pass

    /**
     * The peers' part of a progress pass: push what is queued towards each, confirm
     * {@code FI_TRANSMIT_COMPLETE} sends, and check peers for life when due.
     *
     * @return the work done
     */
    int progress() {
        int work = 0;
        boolean watched = false;
        for (Peer p : peers) {
            if (!p.queue.isEmpty()) {
                work += owner.flush(p);
            }
            watched |= watched(p);
        }
        if (owner.awaitsLifeChecks()) {
            work += confirmPeers();
        }
        // The clock only when some peer has something the liveness check would fail, or on
        // every 64th pass (idle peers are looked at too, PeerLiveness): reading it costs
        // 40-100 ns here (as much as a whole 64 B message).
        if (liveness.clockWanted(watched)) {
            long now = System.nanoTime();
            boolean all = liveness.allDue(now);
            if (all || (watched && liveness.watchedDue(now))) {
                checkLiveness(now, all);
            }
        }
        return work;
    }

    /**
     * The domain's progress is about to sleep (it found no work): every mapped peer is looked
     * at when due, so that an idle peer's death is found while nobody progresses actively.
     */
    void beforeSleep() {
        long now = System.nanoTime();
        if (liveness.allDue(now)) {
            checkLiveness(now, true);
        }
    }

    /**
     * FI_TRANSMIT_COMPLETE operations whose records are in their peers' rings: one life check
     * per peer (made now, after every such publish) completes all of them, or fails the peer
     * (then those whose records it consumed before it went still succeed, {@link #failPeer}).
     */
    private int confirmPeers() {
        int work = 0;
        for (Peer p : peers) {
            if (p.unconfirmed == 0 || p.failed != 0 || p.link == null) {
                continue;
            }
            if (p.mappingTruncated()) {
                // touching it faults (docs/SHM-LAYOUT.md "Bad input, faults, security"): raise what an earlier access left
                // pending here, inside the step's guard, and fail the peer before more
                MappingFaults.deliverPending();
                failPeer(p, Errno.EIO);
                continue;
            }
            if (p.link.peerGone(p.pid == ShmOwnRing.PID)) {
                peerDied(p);
                work++;
                continue;
            }
            work += owner.completeConfirmed(p);
        }
        return work;
    }

    /**
     * The ring asks whether the producer of a stalled claim (its pid) still runs: a known peer
     * answers by its region's owner check (pid and start time), an unknown pid by whether a
     * live process (not a zombie) of that pid exists. A stopped process is alive: its writes
     * after {@code SIGCONT} would land in reused space. A claimant that stored not one word
     * of its record within the stall timeout ({@code SENDER_UNKNOWN}) is taken as dead: a live
     * producer stores its header a few instructions after its CAS (docs/SHM-LAYOUT.md "A
     * producer that claims and dies" says what a producer stopped in that instant costs).
     */
    @Override
    public boolean isAlive(int sender) {
        if (sender == RingDescriptor.SENDER_UNKNOWN) {
            return false;
        }
        if (sender == (int) ShmOwnRing.PID) {
            return true;
        }
        for (Peer p : peers) {
            if (p.pid == sender && p.link != null) {
                return p.link.ownerAlive();
            }
        }
        return ProcessLiveness.startTime(sender) != ProcessLiveness.NO_PROCESS;
    }

    /** Whether {@link #checkLiveness} would look at {@code p}: it has operations or a message in progress. */
    private static boolean watched(Peer p) {
        return p.failed == 0 && p.link != null && (hasPending(p) || p.inbound.inProgress());
    }

    private static boolean hasPending(Peer p) {
        return !p.queue.isEmpty() || p.outstanding > 0 || p.unconfirmed > 0;
    }

    /**
     * Looks at the watched peers (or, with {@code all}, every peer whose region is mapped): a
     * peer whose endpoint closed or whose process died fails with {@code ECONNRESET}; a
     * watched one that made no progress for the progress timeout with {@code ETIMEDOUT}.
     */
    private void checkLiveness(long now, boolean all) {
        for (Peer p : peers) {
            if (p.failed != 0 || p.link == null) {
                continue;
            }
            boolean w = watched(p);
            if (!w) {
                PeerLiveness.unwatched(p);
                if (!all) {
                    continue;
                }
            }
            // on the sweep only (peerCheckMillis): the stat allocates, and accesses probe anyway
            if (all && p.mappingTruncated()) {
                // touching it faults (docs/SHM-LAYOUT.md "Bad input, faults, security"): raise what an earlier access left
                // pending here, inside the step's guard, and fail the peer before more
                MappingFaults.deliverPending();
                failPeer(p, Errno.EIO);
                continue;
            }
            if (p.link.peerGone(p.pid == ShmOwnRing.PID)) {
                peerDied(p);
            } else if (w && liveness.stalled(p, now, liveness.watchesStops() && p.pid != ShmOwnRing.PID && p.link.ownerStopped())) {
                failPeer(p, Errno.ETIMEDOUT);
            }
        }
    }

    // =================================================================== failing peers

    /**
     * The peer's endpoint closed or its process died: what it published into our ring before
     * it went is taken first (records of a failed peer are dropped), then its files go and it
     * fails with ECONNRESET.
     */
    private void peerDied(Peer p) {
        owner.drainPublishedBefore();
        if (p.pid != ShmOwnRing.PID && !p.link.ownerAlive()) {
            own.link().releaseSlotsOf((int) p.pid); // bounce slots the dead process held in our region
        }
        // files first: whoever reads the error completions finds them gone already
        ShmJanitor.clean(dir);
        if (p.failed == 0) {
            counters.lost(p, "the peer's endpoint closed or its process died");
        }
        failPeer(p, Errno.ECONNRESET);
    }

    /**
     * The peer is gone (or unreachable): its queued operations and those awaiting its answer
     * complete with {@code err} (but see {@link ShmTransmitter#failPeerOps}), the receive it
     * was filling fails too, its partial and CMA unexpected messages are dropped, and its
     * mappings are released. Other peers are not affected.
     */
    @Override
    public void failPeer(Peer p, int err) {
        if (p.failed == 0) {
            p.failed = err;
            counters.declaredFailed(p, err);
            if (p.mappingTruncated()) {
                // what looked corrupt was a truncated file: the fault of the access that read
                // it is pending in this thread; raise and take it here, inside this call
                // (MappingFaults: Java raises it late, e.g. in the application's code)
                MappingFaults.deliverPending();
            }
        }
        owner.failPending(p, err);
        p.release();
    }

    /** Every peer failed by a memory fault on one of its mappings ({@code EIO}); whether there was one. */
    boolean failTruncated() {
        boolean found = false;
        for (Peer p : peers) {
            if (p.failed == 0 && p.mappingTruncated()) {
                failPeer(p, Errno.EIO);
                found = true;
            }
        }
        return found;
    }

    /** Lets go of every peer's mappings (close and departure). */
    void releaseAll() {
        for (Peer p : peers) {
            p.release();
        }
    }
}
