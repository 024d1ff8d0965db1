package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fid;
import io.jofi.FidClass;
import io.jofi.PollAttr;
import io.jofi.PollSet;
import java.util.Arrays;

/**
 * A poll set ({@code fi_poll}, fi_poll(3)): asks many util CQs, counters and EQs at once which
 * have events.
 *
 * <ul>
 * <li>{@link #add} accepts only {@link Pollable} CQs, counters and EQs ({@code EINVAL}
 *     otherwise, {@code EEXIST} twice) and retains the member, so that closing a member still
 *     in the set throws {@code EBUSY} (R9); {@link #remove} releases it ({@code ENOENT} for a
 *     non-member).</li>
 * <li>{@link #poll} drives the progress of the members it asks ({@link Pollable#hasEvents})
 *     and fills {@code contexts} with the contexts of those that have events. When
 *     {@code contexts} fills up it stops asking (a counter's "changed" state is consumed by
 *     asking), and the next call starts one member further on, so that no member starves.</li>
 * </ul>
 *
 * <p>Membership is a copy-on-write array: {@link #poll} reads it without a lock.
 */
public class UtilPollSet extends AbstractFid implements PollSet {
    private static final Pollable[] NO_MEMBERS = new Pollable[0];

    private volatile Pollable[] members = NO_MEMBERS;
    /** Where the next poll starts (round robin); a hint, races are harmless. */
    private int start;

    /**
     * Opens a poll set.
     *
     * @param attr {@code null} for defaults; {@code flags} must be 0 ({@code EINVAL})
     */
    public UtilPollSet(PollAttr attr) throws FabricException {
        super(FidClass.POLL_SET, null);
        if (attr != null && attr.flags() != 0) {
            throw new FabricException(Errno.EINVAL, "poll set flags 0x" + Long.toHexString(attr.flags())
                    + " are not supported: none are defined");
        }
    }

    /**
     * {@code fi_poll_add}: adds a CQ, counter or EQ and retains it (R9).
     *
     * @throws FabricException {@code EINVAL} null or not a util CQ/counter/EQ; {@code EEXIST}
     *         already a member; {@code EBADF}/{@code ENODEV} when this set or the member is
     *         closed/departed
     */
    @Override
    public void add(Fid fid) throws FabricException {
        ensureOpen("add");
        if (fid == null) {
            throw new FabricException(Errno.EINVAL, "poll set add: fid is null");
        }
        FidClass c = fid.fidClass();
        if (!(fid instanceof Pollable) || !(fid instanceof AbstractFid)
                || (c != FidClass.CQ && c != FidClass.COUNTER && c != FidClass.EQ)) {
            throw new FabricException(Errno.EINVAL, "poll set add: " + fid
                    + " is not a completion queue, counter or event queue of a JOFI provider");
        }
        synchronized (this) {
            Pollable[] ms = members;
            if (indexOf(ms, fid) >= 0) {
                throw new FabricException(Errno.EEXIST, "poll set add: " + fid + " is already a member");
            }
            ((AbstractFid) fid).retain(); // throws EBADF/ENODEV for a closed or departed member
            Pollable[] n = Arrays.copyOf(ms, ms.length + 1);
            n[ms.length] = (Pollable) fid;
            members = n;
        }
    }

    /**
     * {@code fi_poll_del}: removes a member and releases it.
     *
     * @throws FabricException {@code ENOENT} not a member; {@code EBADF}/{@code ENODEV} when
     *         this set is closed/departed
     */
    @Override
    public void remove(Fid fid) throws FabricException {
        ensureOpen("remove");
        synchronized (this) {
            Pollable[] ms = members;
            int i = indexOf(ms, fid);
            if (i < 0) {
                throw new FabricException(Errno.ENOENT, "poll set remove: " + fid + " is not a member");
            }
            Pollable[] n = ms.length == 1 ? NO_MEMBERS : new Pollable[ms.length - 1];
            System.arraycopy(ms, 0, n, 0, i);
            System.arraycopy(ms, i + 1, n, i, ms.length - i - 1);
            members = n;
        }
        ((AbstractFid) fid).release();
    }

    /**
     * {@code fi_poll}: asks the members, fills {@code contexts} from index 0 with the
     * contexts of those that have events.
     *
     * @return how many were filled (0 when none has events or {@code contexts} is empty);
     *         {@code -EINVAL} null array; {@code -EBADF} closed; {@code -ENODEV} departed
     */
    @Override
    public int poll(Object[] contexts) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if (contexts == null) {
            return -Errno.EINVAL;
        }
        Pollable[] ms = members;
        int n = ms.length;
        int max = contexts.length;
        if (n == 0 || max == 0) {
            return 0;
        }
        int first = Math.floorMod(start, n);
        start = first + 1;
        int filled = 0;
        for (int k = 0; k < n && filled < max; k++) {
            int i = first + k;
            Pollable p = ms[i < n ? i : i - n];
            if (p.hasEvents()) {
                contexts[filled++] = p.context();
            }
        }
        return filled;
    }

    /** How many members the set has. */
    public int size() {
        return members.length;
    }

    @Override
    protected void onClose() {
        releaseAll();
    }

    /** Lets go of the members, so that the application can close them after departure (R15). */
    @Override
    protected void onDeparture() {
        releaseAll();
    }

    @Override
    protected String describe() {
        return "poll set";
    }

    private void releaseAll() {
        Pollable[] ms;
        synchronized (this) {
            ms = members;
            members = NO_MEMBERS;
        }
        for (Pollable p : ms) {
            ((AbstractFid) p).release();
        }
    }

    private static int indexOf(Pollable[] ms, Fid fid) {
        for (int i = 0; i < ms.length; i++) {
            if (ms[i] == fid) {
                return i;
            }
        }
        return -1;
    }
}
