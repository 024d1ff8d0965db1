package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.Fid;
import java.util.Collection;

/** {@code fi_trywait} over util objects: whether it is safe to block on their wait objects. */
public final class TryWait {
    private TryWait() {
    }

    /**
     * @return 0 when none of {@code fids} has anything to read; {@code -EAGAIN} when one has;
     *         {@code -EINVAL} for an object that is not a waitable util queue or has no wait object
     */
    public static int tryWait(Fid... fids) {
        if (fids == null) {
            return -Errno.EINVAL;
        }
        for (Fid fid : fids) {
            if (!(fid instanceof Pollable)) {
                return -Errno.EINVAL;
            }
            Pollable p = (Pollable) fid;
            if (!p.waitSupport().canBlock()) {
                return -Errno.EINVAL;
            }
        }
        for (Fid fid : fids) {
            if (((Pollable) fid).hasEvents()) {
                return -Errno.EAGAIN;
            }
        }
        return 0;
    }

    /**
     * {@code fi_trywait} for a fabric whose {@code MANUAL} domains have {@link WaitBridge}s:
     * {@link #tryWait}, then each queue's FD falls silent unless it has something to read (a
     * spurious signal of a bridge is reset here, as fi_trywait resets a provider's fd), then
     * every bridge is armed with the queues' wait objects, so that what arrives while the
     * application sleeps on them signals them. A bridge whose transport holds something
     * progress can take answers {@code -EAGAIN}.
     *
     * @param bridges the bridges of the fabric's {@code MANUAL} domains (empty: as {@link #tryWait})
     * @return as {@link #tryWait}
     */
    public static int tryWait(Collection<WaitBridge> bridges, Fid... fids) {
        int rc = tryWait(fids);
        if (rc != 0 || bridges.isEmpty()) {
            return rc;
        }
        WaitSupport[] waits = new WaitSupport[fids.length];
        for (int i = 0; i < fids.length; i++) {
            waits[i] = ((Pollable) fids[i]).waitSupport(); // tryWait checked: Pollable, can block
            waits[i].afterRead();
        }
        return WaitBridge.armAll(bridges, waits);
    }
}
