package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.Fid;

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
}
