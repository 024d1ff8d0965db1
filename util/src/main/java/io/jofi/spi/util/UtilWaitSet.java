package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.FidClass;
import io.jofi.WaitAttr;
import io.jofi.WaitObj;
import io.jofi.WaitObject;
import io.jofi.WaitSet;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A wait set ({@code fi_wait}): queues opened with {@code WaitObj.SET} and this set signal
 * it. {@link #await} is level-triggered: it returns at once while any member has something
 * to read, else blocks until a member signals; in {@code MANUAL} progress it drives the
 * progress of its members' domains while it waits (as a CQ's sread does), so that data
 * arriving for a member ends the wait.
 */
public final class UtilWaitSet extends AbstractFid implements WaitSet, WaitSupport.Readiness, Pollable {
    private static final WaitSupport[] NONE = new WaitSupport[0];
    private static final VarHandle PENDING;

    static {
        try {
            PENDING = MethodHandles.lookup().findVarHandle(UtilWaitSet.class, "pending", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final WaitSupport own;
    private volatile WaitSupport[] members = NONE;
    private volatile boolean pending;

    /**
     * @throws FabricException {@code EINVAL} for a wait set of wait object {@code NONE} or {@code SET}
     */
    public UtilWaitSet(WaitAttr attr) throws FabricException {
        super(FidClass.WAIT_SET, null);
        WaitObj w = attr == null || attr.waitObj() == null || attr.waitObj() == WaitObj.NONE
                ? WaitObj.UNSPEC : attr.waitObj();
        if (w == WaitObj.SET) {
            throw new FabricException(Errno.EINVAL, "a wait set cannot wait on a wait set");
        }
        this.own = WaitSupport.open(w, null);
        own.attach(this);
        own.drivesMembersOf(this); // MANUAL progress: await moves its members' data (as sread does)
    }

    /**
     * {@code fi_wait}: 0 when a member signalled or has something to read; {@code -EAGAIN} on
     * timeout or interrupt (R4); {@code -EBADF}/{@code -ENODEV} when the set is, or while
     * waiting becomes, closed/departed (R15).
     */
    @Override
    public int await(int timeoutMs) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        rc = own.await(this, 0, timeoutMs);
        if (rc == 0) {
            pending = false;
            own.afterRead();
            return 0;
        }
        // Woken by close or departure: say so (-EBADF/-ENODEV, R15) rather than "timed out".
        int shut = dataPathCheck();
        return shut != 0 ? shut : rc;
    }

    @Override
    public WaitObject getWait() throws FabricException {
        ensureOpen("getWait");
        return own.exportWait();
    }

    /** Level-triggered readiness: a member signalled or has something to read. */
    @Override
    public boolean isReady(long arg) {
        if (pending) {
            return true;
        }
        WaitSupport[] ms = members;
        for (int i = 0; i < ms.length; i++) {
            if (ms[i].isReady()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public WaitSupport waitSupport() {
        return own;
    }

    /**
     * {@code fi_trywait} on the set: as libfabric's wait sets, an attempt consumes the set's
     * own signal (the "a member signalled" mark and the FD) and then asks the members,
     * level-triggered. Without the consume the mark, set by the first completion, would make
     * every later attempt answer {@code -EAGAIN} until {@link #await} ran, so an application
     * blocking on the FD could never block. A mark it consumes is reported (never lost); one
     * set after the consume stays for the next attempt.
     */
    @Override
    public boolean hasEvents() {
        driveMembers();
        boolean signalled = (boolean) PENDING.getAndSet(this, false);
        own.afterRead(); // the FD falls silent unless a member still has something
        return signalled || isReady(0);
    }

    void join(WaitSupport member) throws FabricException {
        retain();
        synchronized (this) {
            members = SnapshotArrays.with(members, member);
        }
    }

    void leave(WaitSupport member) {
        boolean found = false;
        synchronized (this) {
            WaitSupport[] ms = members;
            members = SnapshotArrays.without(ms, member);
            found = members != ms;
        }
        // Only a member that joined holds a count on this set (join retains before adding).
        if (found) {
            release();
        }
    }

    /** Drives every member's manual progress once (the set's waiters call it). */
    void driveMembers() {
        WaitSupport[] ms = members;
        for (int i = 0; i < ms.length; i++) {
            ms[i].driveProgress();
        }
    }

    /** The first engine of a member that a blocked waiter may sleep in; null if none. */
    ProgressEngine firstMemberEngine() {
        WaitSupport[] ms = members;
        for (int i = 0; i < ms.length; i++) {
            ProgressEngine e = ms[i].firstEngine();
            if (e != null) {
                return e;
            }
        }
        return null;
    }

    /** Wakes the members' engines, one of which a waiter of the set may sleep in. */
    void wakeMemberEngines() {
        WaitSupport[] ms = members;
        for (int i = 0; i < ms.length; i++) {
            ms[i].wakeEngines();
        }
    }

    void memberSignalled() {
        pending = true;
        own.notifyReady();
    }

    @Override
    protected void onClose() {
        own.close();
    }

    @Override
    protected void onDeparture() {
        own.close();
    }

    @Override
    protected String describe() {
        return "wait set";
    }
}
