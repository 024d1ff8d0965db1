package io.jofi.provider.rxm;

/**
 * The credit flow control of one rxm connection's MSG endpoint, kept as libfabric 1.17's verbs
 * provider keeps it for rxm, so that a peer of either kind never sends into a receive queue with
 * nothing posted: every packet that takes a receive at the peer (every rxm packet, and an RMA
 * write with remote CQ data) takes a credit, and the receiver grants credits for the receives
 * it posts, in {@link RxmWireDescriptor#TYPE_CREDIT} packets once half its receive buffers are
 * due.
 *
 * <pre>
 *   before enable:  peer = unlimited (credits that arrive are saved)     due = -1
 *   enable(t):      peer = 1 + saved   (both sides assume one credit)     threshold = t
 *   take:           peer &lt;= 0 -&gt; refused; peer 1 -&gt; refused unless the packet grants credits
 *                   (the last credit is kept for a credit update, so two peers out of credits
 *                   can still tell each other of new ones)
 *   post receive:   due + 1; at due &gt;= threshold: grant due, due = 0
 *                   — and at due &gt; 0 when the peer has at most the one credit kept for
 *                   grants (by our count: 1 + granted - packets received)
 *   withholding:    (our unexpected messages at their limits) only 1, to a peer with none
 *   packet came:    peer holds - 1; below 1 for a message, below 0 for a grant: the peer
 *                   sent what it had no credit for (it ignores flow control)
 * </pre>
 *
 * The {@code -1} start of {@code due} takes back the one credit the peer assumed. The last two
 * grant rules are ours: libfabric grants at the threshold only, which is enough while every
 * packet is posted again at once and nothing is withheld; JOFI withholds grants while its
 * unexpected messages are at their limits ({@link RxmCreditGrants}), and a peer that spent its
 * last credit on a grant to us must still be able to grant again — else our own sends, which
 * wait for its grants, would wait for ever.
 *
 * <p><b>A peer that ignores credits.</b> Packets of one connection arrive in the order they
 * were sent, and the peer can spend only grants that reached it, so the credits it holds by its
 * own count are never more than by ours ({@code peerHolds}). A peer that keeps to the rules —
 * libfabric's verbs provider refuses a message at its last credit and any packet at none —
 * therefore never brings our count below 1 with a message or below 0 with a grant; one that
 * does sends beyond what we granted, and {@link #packetCame} says so (the connection is ended:
 * else a peer that ignores withheld grants would have its messages copied for as long as it
 * sends). Nothing is sent before {@link #enable} on a connection where both sides offered
 * credits (libfabric's rxm sends on its connected event, JOFI once its connection is up), so
 * the count holds from the connection's first packet.
 * Used under the endpoint's lock; one per MSG endpoint (a re-made connection starts afresh).
 */
final class RxmCredits {
    /**
     * Where the peer's grants stop adding up (2^62, far beyond any receive queue): a sum that
     * wrapped would refuse all our sends.
     */
    private static final long MOST = Long.MAX_VALUE / 2;

    /**
     * Whether an RMA write with remote CQ data takes one of the peer's receives (the MSG
     * provider's {@code FI_RX_CQ_DATA}: verbs' write with immediate data), and so a credit.
     */
    private final boolean remoteDataTakesReceive;
    /** Whether flow control is on ({@link #enable}): before, the peer's credits are unlimited (verbs' {@code UINT64_MAX}). */
    private boolean enabled;
    private long peer;
    private long saved;
    private long due = -1;
    private long threshold = Long.MAX_VALUE;
    /** The credits the peer holds by our count: the one assumed, plus what we granted, less the packets that came. */
    private long peerHolds = 1;
    /** The peer sent beyond its credits ({@link #firstOverdraft}). */
    private boolean overdrawn;

    RxmCredits(boolean remoteDataTakesReceive) {
        this.remoteDataTakesReceive = remoteDataTakesReceive;
    }

    /** Whether an RMA write with remote CQ data takes one of the peer's receives, and so a credit. */
    boolean remoteDataTakesReceive() {
        return remoteDataTakesReceive;
    }

    /** Both sides offered flow control and the connection is up: from now on sends are counted. */
    void enable(int threshold) {
        this.threshold = Math.max(1, threshold);
        peer = 1 + saved;
        enabled = true;
        saved = 0;
    }

    boolean enabled() {
        return enabled;
    }

    /**
     * A credit for a packet that takes one of the peer's receives; false when none is free
     * ({@code -EAGAIN}: the post is tried again once credits came).
     *
     * @param grant the packet grants credits itself: it may take the last one
     */
    boolean take(boolean grant) {
        if (!enabled) {
            return true;
        }
        if (peer <= 0 || (peer == 1 && !grant)) {
            return false;
        }
        peer--;
        return true;
    }

    /** A packet that took a credit was not posted after all. */
    void giveBack() {
        if (enabled) {
            peer++;
        }
    }

    /** The peer granted {@code n} credits. */
    void arrived(long n) {
        if (n <= 0) {
            return;
        }
        // (a flag, not a value of peer, says whether credits are on: before, a grant that
        // brought the sum to the "unlimited" value turned them off — and with them the check
        // that cuts off a peer sending beyond its grants)
        if (enabled) {
            peer = Math.min(MOST, peer + Math.min(n, MOST));
        } else {
            saved = Math.min(MOST, saved + Math.min(n, MOST));
        }
    }

    /** A receive buffer was posted on the MSG endpoint. */
    void posted() {
        due++;
    }

    /**
     * A packet of the peer's took one of our receives: it spent a credit.
     *
     * @param grant the packet is a credit grant (it may take the peer's last credit)
     * @return false when, by our count, the peer had no credit for it (see the class comment):
     *         never before {@link #enable}
     */
    boolean packetCame(boolean grant) {
        return --peerHolds >= (grant ? 0 : 1) || !enabled;
    }

    /**
     * The credits to grant now (then no longer due), or 0: none before enable, and after it
     * fewer than the threshold due while the peer still has more than its last credit.
     *
     * @param withhold the receiver is at its unexpected limits: at most the one credit a peer
     *                 without any needs to send us a grant (the last credit carries no message)
     */
    long grant(boolean withhold) {
        if (due <= 0 || !enabled()) {
            return 0;
        }
        long n;
        if (withhold) {
            n = peerHolds <= 0 ? 1 : 0;
        } else {
            n = due >= threshold || peerHolds <= 1 ? due : 0;
        }
        due -= n;
        peerHolds += n;
        return n;
    }

    /** True the first time after {@link #packetCame} returned false: the connection's end is to be noted once. */
    boolean firstOverdraft() {
        if (overdrawn) {
            return false;
        }
        overdrawn = true;
        return true;
    }

    /** Whether receives were posted that are not granted yet. */
    boolean hasDue() {
        return due > 0;
    }

    /** A grant that could not be sent: due again. */
    void regrant(long n) {
        due += n;
        peerHolds -= n;
    }

    /** Credits the peer may still use (for tests and statistics; {@code Long.MAX_VALUE} before enable). */
    long peerCredits() {
        return enabled ? peer : Long.MAX_VALUE;
    }

    @Override
    public String toString() {
        return enabled() ? "credits: peer " + peer + ", due " + due + " of " + threshold + ", peer holds " + peerHolds
                : "credits: off";
    }
}
