package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Fid;
import java.util.Objects;

/**
 * What an active endpoint is bound to ({@code fi_ep_bind}, fi_endpoint(3)), written once for
 * every provider: a transmit and a receive CQ (each with or without
 * {@code FI_SELECTIVE_COMPLETION}), an EQ, an AV and a counter per role. Each binding retains
 * the bound object, so that closing it answers {@code EBUSY} while the endpoint lives (R9),
 * and attaches the endpoint's {@link ProgressEngine} to the CQs, counters and EQ, so that
 * reading them drives the endpoint in manual progress (fi_endpoint(3): "endpoints that use
 * manual progress must be associated with relevant completion queues or event queues in order
 * to drive progress"). {@link #releaseAll} undoes all of it once.
 *
 * <p>The rules of fi_endpoint(3) "fi_ep_bind" it enforces, each an {@link FabricException}
 * that leaves the bindings as they were:
 * <ul>
 * <li>a CQ takes {@code FI_TRANSMIT} and/or {@code FI_RECV}, optionally with
 *     {@code FI_SELECTIVE_COMPLETION}; a counter one or more of the roles the provider counts
 *     ({@code FI_SEND}, {@code FI_RECV}, {@code FI_READ}, {@code FI_WRITE},
 *     {@code FI_REMOTE_READ}, {@code FI_REMOTE_WRITE}); other flags: {@code EINVAL}. An EQ
 *     and an AV have no role (their flags are not looked at);</li>
 * <li>"An endpoint may only be bound to a single CQ or counter for a given type of
 *     operation": a second CQ, counter, EQ or AV for a role that is bound: {@code EINVAL};</li>
 * <li>an object that is not a util CQ, EQ, counter or AV: {@code EINVAL};</li>
 * <li>an object that is closed ({@code EBADF}) or whose provider departed ({@code ENODEV});</li>
 * <li>"CQs, counters, AV, and shared contexts must be bound to endpoints before they are
 *     enabled": any bind after {@link #seal()} is {@code EOPBADSTATE}.</li>
 * </ul>
 *
 * <p>Control path only and not thread-safe: the endpoint calls it under its own lock. The
 * data path keeps its own copies of the bound objects (read them here after each bind), so
 * that no operation pays an extra indirection.
 */
public final class EndpointBindings {
    /** Every counter role fi_ep_bind knows. */
    public static final long ALL_COUNTER_ROLES = Fi.FI_SEND | Fi.FI_RECV | Fi.FI_READ | Fi.FI_WRITE
            | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE;

    private static final long CQ_ROLES = Fi.FI_TRANSMIT | Fi.FI_RECV;
    private static final long CQ_FLAGS = CQ_ROLES | Fi.FI_SELECTIVE_COMPLETION;
    /** The counter roles in a fixed order: index i holds the counter of ROLE_BITS[i]. */
    private static final long[] ROLE_BITS = {Fi.FI_SEND, Fi.FI_RECV, Fi.FI_READ, Fi.FI_WRITE,
            Fi.FI_REMOTE_READ, Fi.FI_REMOTE_WRITE};
    private static final String[] ROLE_NAMES = {"FI_SEND", "FI_RECV", "FI_READ", "FI_WRITE",
            "FI_REMOTE_READ", "FI_REMOTE_WRITE"};

    private final ProgressEngine engine;
    private final long counterRoles;
    private UtilCompletionQueue txCq;
    private UtilCompletionQueue rxCq;
    private boolean selectiveTx;
    private boolean selectiveRx;
    private UtilEventQueue eq;
    private UtilAddressVector av;
    private final UtilCounter[] counters = new UtilCounter[ROLE_BITS.length];
    private boolean sealed;
    private boolean released;

    /**
     * @param engine       the progress engine of the endpoint's domain, attached to every bound
     *                     CQ, counter and EQ
     * @param counterRoles the counter roles the provider counts: a non-empty subset of
     *                     {@link #ALL_COUNTER_ROLES}; binding a counter for another role is
     *                     {@code EINVAL}
     */
    public EndpointBindings(ProgressEngine engine, long counterRoles) {
        this.engine = Objects.requireNonNull(engine, "engine");
        if (counterRoles == 0 || (counterRoles & ~ALL_COUNTER_ROLES) != 0) {
            throw new IllegalArgumentException("counterRoles must be a non-empty subset of ALL_COUNTER_ROLES, got 0x"
                    + Long.toHexString(counterRoles));
        }
        this.counterRoles = counterRoles;
    }

    /**
     * {@code fi_ep_bind}: binds {@code fid} for the roles in {@code flags}, retaining it once per
     * role (R9) and attaching the progress engine to it. On any error nothing changes.
     *
     * @throws FabricException {@code EINVAL} for flags the object does not take, a role bound
     *         already or an object that is no util CQ, EQ, counter or AV; {@code EOPBADSTATE}
     *         after {@link #seal()}; {@code EBADF} / {@code ENODEV} for a closed / departed
     *         object
     */
    public void bind(Fid fid, long flags) throws FabricException {
        if (sealed || released) {
            throw new FabricException(Errno.EOPBADSTATE, released
                    ? "bind: the endpoint is closed"
                    : "bind: the endpoint is enabled already; bind before enable (fi_endpoint(3))");
        }
        if (fid instanceof UtilCompletionQueue cq) {
            bindCq(cq, flags);
        } else if (fid instanceof UtilCounter c) {
            bindCounter(c, flags);
        } else if (fid instanceof UtilEventQueue q) {
            if (eq != null) {
                throw new FabricException(Errno.EINVAL, "bind: an event queue is bound already");
            }
            q.retain();
            q.attachProgress(engine);
            eq = q;
        } else if (fid instanceof UtilAddressVector a) {
            if (av != null) {
                throw new FabricException(Errno.EINVAL, "bind: an address vector is bound already");
            }
            a.retain();
            av = a;
        } else {
            throw new FabricException(Errno.EINVAL, "bind: " + fid + " is not a CQ, EQ, counter or AV of this provider");
        }
    }

    private void bindCq(UtilCompletionQueue cq, long flags) throws FabricException {
        long roles = flags & CQ_ROLES;
        if (roles == 0 || (flags & ~CQ_FLAGS) != 0) {
            throw new FabricException(Errno.EINVAL, "bind: a CQ takes FI_TRANSMIT and/or FI_RECV (and"
                    + " FI_SELECTIVE_COMPLETION), got 0x" + Long.toHexString(flags));
        }
        boolean tx = (roles & Fi.FI_TRANSMIT) != 0;
        boolean rx = (roles & Fi.FI_RECV) != 0;
        if ((tx && txCq != null) || (rx && rxCq != null)) {
            throw new FabricException(Errno.EINVAL, "bind: a CQ is bound for that direction already");
        }
        retain(cq, (tx ? 1 : 0) + (rx ? 1 : 0));
        boolean selective = (flags & Fi.FI_SELECTIVE_COMPLETION) != 0;
        if (tx) {
            cq.attachProgress(engine);
            txCq = cq;
            selectiveTx = selective;
        }
        if (rx) {
            cq.attachProgress(engine);
            rxCq = cq;
            selectiveRx = selective;
        }
    }

    private void bindCounter(UtilCounter c, long flags) throws FabricException {
        if ((flags & counterRoles) == 0 || (flags & ~counterRoles) != 0) {
            throw new FabricException(Errno.EINVAL, "bind: a counter of this endpoint counts " + roleNames(counterRoles)
                    + ", got 0x" + Long.toHexString(flags));
        }
        int n = 0;
        for (int i = 0; i < ROLE_BITS.length; i++) {
            if ((flags & ROLE_BITS[i]) != 0) {
                if (counters[i] != null) {
                    throw new FabricException(Errno.EINVAL, "bind: a counter is bound for " + ROLE_NAMES[i] + " already");
                }
                n++;
            }
        }
        retain(c, n);
        for (int i = 0; i < ROLE_BITS.length; i++) {
            if ((flags & ROLE_BITS[i]) != 0) {
                c.attachProgress(engine);
                counters[i] = c;
            }
        }
    }

    /** Retains {@code fid} {@code n} times, or not at all when it cannot be retained. */
    private static void retain(AbstractFid fid, int n) throws FabricException {
        int done = 0;
        try {
            for (; done < n; done++) {
                fid.retain();
            }
        } catch (FabricException e) {
            for (; done > 0; done--) {
                fid.release();
            }
            throw e;
        }
    }

    private static String roleNames(long roles) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < ROLE_BITS.length; i++) {
            if ((roles & ROLE_BITS[i]) != 0) {
                b.append(b.length() == 0 ? "" : ", ").append(ROLE_NAMES[i]);
            }
        }
        return b.toString();
    }

    /**
     * Ends binding (fi_endpoint(3): objects are bound before the endpoint is enabled): every
     * later {@link #bind} fails with {@code EOPBADSTATE}. The endpoint calls it when enabled.
     */
    public void seal() {
        sealed = true;
    }

    /** The CQ bound with {@code FI_TRANSMIT}, or null. */
    public UtilCompletionQueue txCq() {
        return txCq;
    }

    /** The CQ bound with {@code FI_RECV}, or null. */
    public UtilCompletionQueue rxCq() {
        return rxCq;
    }

    /** Whether the transmit CQ was bound with {@code FI_SELECTIVE_COMPLETION}. */
    public boolean selectiveTx() {
        return selectiveTx;
    }

    /** Whether the receive CQ was bound with {@code FI_SELECTIVE_COMPLETION}. */
    public boolean selectiveRx() {
        return selectiveRx;
    }

    /** The bound EQ, or null. */
    public UtilEventQueue eq() {
        return eq;
    }

    /** The bound AV, or null. */
    public UtilAddressVector av() {
        return av;
    }

    /**
     * The counter bound for {@code role}, or null.
     *
     * @param role exactly one of {@link #ALL_COUNTER_ROLES}
     */
    public UtilCounter counter(long role) {
        for (int i = 0; i < ROLE_BITS.length; i++) {
            if (ROLE_BITS[i] == role) {
                return counters[i];
            }
        }
        throw new IllegalArgumentException("not a counter role: 0x" + Long.toHexString(role));
    }

    /**
     * Undoes every binding once: detaches the progress engine and releases each bound object
     * as often as it was retained, so that it may be closed again (R9). With {@code closing}
     * (the endpoint being closed) the events it left on its EQ go too, as nobody can act on
     * them any more; with {@code null} (provider departure, R15) they stay for the application
     * to drain. Later calls do nothing, and {@link #bind} then fails.
     */
    public void releaseAll(Fid closing) {
        if (released) {
            return;
        }
        released = true;
        if (txCq != null) {
            txCq.detachProgress(engine);
            txCq.release();
        }
        if (rxCq != null) {
            rxCq.detachProgress(engine);
            rxCq.release();
        }
        if (eq != null) {
            if (closing != null) {
                eq.removeEventsOf(closing);
            }
            eq.detachProgress(engine);
            eq.release();
        }
        for (int i = 0; i < counters.length; i++) {
            if (counters[i] != null) {
                counters[i].detachProgress(engine);
                counters[i].release();
                counters[i] = null;
            }
        }
        if (av != null) {
            av.release();
        }
        txCq = null;
        rxCq = null;
        eq = null;
        av = null;
    }
}
