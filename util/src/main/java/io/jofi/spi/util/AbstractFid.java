package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fid;
import io.jofi.FidClass;

/**
 * The life cycle every fabric object shares: open → closed, or open → departed when its
 * provider goes away (R15); a count of the objects bound to it, so that {@link #close()}
 * answers {@code EBUSY} while it is in use (R9).
 *
 * <p>State is a volatile int so that data-path calls check it with one plain read
 * ({@link #dataPathCheck()}); transitions and bind counts change under this object's
 * monitor (control path only).
 */
public abstract class AbstractFid implements Fid {
    /** Usable. */
    protected static final int OPEN = 0;
    /** Closed by the application. */
    protected static final int CLOSED = 1;
    /** Its provider departed (R15): readable where the rules say so, otherwise {@code ENODEV}. */
    protected static final int DEPARTED = 2;

    private final FidClass fidClass;
    private final Object context;
    private volatile int state = OPEN;
    /**
     * Why the object failed ({@link #fail}), or null. A failed object is {@link #DEPARTED},
     * but answers {@code EIO} where a departed one answers {@code ENODEV}. Written before
     * {@code state}, so whoever sees the state sees the reason.
     */
    private volatile String failure;
    private int bindCount;
    /** Run once after close (see {@link #whenClosed}); guarded by this. */
    private Runnable closeActions;

    protected AbstractFid(FidClass fidClass, Object context) {
        this.fidClass = fidClass;
        this.context = context;
    }

    @Override
    public final FidClass fidClass() {
        return fidClass;
    }

    @Override
    public final Object context() {
        return context;
    }

    /** {@link #OPEN}, {@link #CLOSED} or {@link #DEPARTED}. */
    protected final int state() {
        return state;
    }

    public final boolean isOpen() {
        return state == OPEN;
    }

    public final boolean isDeparted() {
        return state == DEPARTED;
    }

    /**
     * Records that another object was bound to this one (an endpoint to a CQ, a CQ to a wait
     * set, ...). Fails when this object is no longer open.
     */
    public final synchronized void retain() throws FabricException {
        ensureOpen("bind");
        bindCount++;
    }

    /** Undoes one {@link #retain()} (the bound object was closed or departed). */
    public final synchronized void release() {
        if (bindCount > 0) {
            bindCount--;
        }
    }

    /** How many objects are bound to this one. */
    public final synchronized int bindCount() {
        return bindCount;
    }

    /**
     * Closes the object. Closing a closed object does nothing (as {@link java.io.Closeable}).
     *
     * @throws FabricException {@code EBUSY} while objects are bound to it; nothing changes then (R9)
     */
    @Override
    public final void close() throws FabricException {
        Runnable actions;
        synchronized (this) {
            if (state == CLOSED) {
                return;
            }
            if (bindCount > 0) {
                throw new FabricException(Errno.EBUSY, describe() + " is still bound to " + bindCount
                        + " object(s); close those first");
            }
            state = CLOSED;
            actions = closeActions;
            closeActions = null;
        }
        try {
            onClose();
        } finally {
            if (actions != null) {
                actions.run();
            }
        }
    }

    /**
     * Runs {@code action} once, after this object has been closed and {@link #onClose()} ran:
     * how the object that opened it (a domain, a fabric) releases it and forgets it, whatever
     * subclass it is. Runs at once when the object is closed already. Not run on departure:
     * a departed object still counts as open under its owner until the application closes it.
     */
    public final void whenClosed(Runnable action) {
        synchronized (this) {
            if (state != CLOSED) {
                Runnable before = closeActions;
                closeActions = before == null ? action : () -> {
                    before.run();
                    action.run();
                };
                return;
            }
        }
        action.run();
    }

    /**
     * Marks the object departed and runs {@link #onDeparture()} once: called by
     * {@link ProviderResources#departAll} when the provider goes away (R15).
     */
    public final void depart() {
        synchronized (this) {
            if (state != OPEN) {
                return;
            }
            state = DEPARTED;
        }
        onDeparture();
    }

    /**
     * Ends the object for good because what moves it broke — its domain's progress failed
     * ({@link UtilDomain#progressFailed}) — as a departure does: the state becomes
     * {@link #DEPARTED} and {@link #onDeparture()} runs once (pending operations end with an
     * error, a connected endpoint raises {@code FI_SHUTDOWN}), but with {@code EIO}: data-path
     * calls answer {@code -EIO}, control calls throw {@code EIO} naming {@code why}, and
     * {@link #departureError()} is {@code EIO}. Closing still works. Does nothing unless open.
     */
    public final void fail(String why) {
        if (markFailed(why)) {
            onDeparture();
        }
    }

    /**
     * The state change of {@link #fail} without {@link #onDeparture()}: for an object whose
     * resources must stay until it is closed (a domain: the regions, queues and endpoints
     * opened under it are closed after it failed, and release into it).
     *
     * @return whether the object was open (and is failed now)
     */
    protected final boolean markFailed(String why) {
        synchronized (this) {
            if (state != OPEN) {
                return false;
            }
            failure = why == null ? "failed" : why;
            state = DEPARTED;
            return true;
        }
    }

    /** Why {@link #fail} ended the object, or {@code null} when it did not. */
    public final String failure() {
        return failure;
    }

    /**
     * The error {@link #onDeparture()} completes pending operations with: {@code ECANCELED}
     * when the provider departed (R15), {@code EIO} when the object {@link #fail}ed.
     */
    protected final int departureError() {
        return failure != null ? Errno.EIO : Errno.ECANCELED;
    }

    /** Departs {@code part} (an object this one owns) the way this one went: failed for the same reason, or departed. */
    protected final void departAlong(AbstractFid part) {
        String why = failure;
        if (why != null) {
            part.fail(why);
        } else {
            part.depart();
        }
    }

    /** Releases what the object holds; runs once, after the state became {@link #CLOSED}. */
    protected abstract void onClose() throws FabricException;

    /** Shuts the object down because its provider departed; the default does nothing. */
    protected void onDeparture() {
    }

    /**
     * For data-path calls: 0 when open, {@code -EBADF} when closed, {@code -ENODEV} when
     * departed, {@code -EIO} when failed ({@link #fail}).
     */
    protected final int dataPathCheck() {
        int s = state;
        return s == OPEN ? 0 : s == DEPARTED ? (failure != null ? -Errno.EIO : -Errno.ENODEV) : -Errno.EBADF;
    }

    /**
     * For control-path calls: throws {@code EBADF} when closed, {@code ENODEV} when departed
     * and {@code EIO} with the reason when failed ({@link #fail}).
     */
    protected final void ensureOpen(String operation) throws FabricException {
        int s = state;
        if (s == CLOSED) {
            throw new FabricException(Errno.EBADF, operation + ": " + describe() + " is closed");
        }
        String why = failure;
        if (s == DEPARTED && why != null) {
            throw new FabricException(Errno.EIO, operation + ": " + describe() + " failed: " + why);
        }
        if (s == DEPARTED) {
            throw new FabricException(Errno.ENODEV, operation + ": the provider of " + describe() + " has departed");
        }
    }

    /** A short name for messages, e.g. {@code "completion queue"}. */
    protected String describe() {
        return fidClass.name().toLowerCase().replace('_', ' ');
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(this))
                + "[" + (state == OPEN ? "open" : state == CLOSED ? "closed" : failure != null ? "failed" : "departed") + "]";
    }
}
