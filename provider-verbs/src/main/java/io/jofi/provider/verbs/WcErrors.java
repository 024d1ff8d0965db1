package io.jofi.provider.verbs;

import io.jofi.Errno;
import io.jofi.provider.verbs.binding.VerbsConstants;

/**
 * How a failed work completion becomes a CQ error entry (docs/VERBS.md "MSG endpoints"): a flushed work request
 * (the queue pair went to the error state: cancel, shutdown, a broken connection) is
 * {@code ECANCELED} (R13); a receive too small for the message is {@code ETRUNC} (R12); every
 * other status is {@code EIO} with the status as {@code provErrno}, which {@link #describe}
 * turns into its name ({@code ibv_wc_status_str}) for {@code strerror}.
 */
final class WcErrors {
    private WcErrors() {
    }

    /** The positive errno of work-completion status {@code status} ({@code IBV_WC_SUCCESS} = 0). */
    static int errno(int status) {
        if (status == VerbsConstants.IBV_WC_SUCCESS) {
            return 0;
        }
        if (status == VerbsConstants.IBV_WC_WR_FLUSH_ERR) {
            return Errno.ECANCELED;
        }
        if (status == VerbsConstants.IBV_WC_LOC_LEN_ERR) {
            return Errno.ETRUNC;
        }
        return Errno.EIO;
    }

    /**
     * What the operation whose {@code post_send}/{@code post_recv} the device refused answers:
     * a full queue ({@code ENOMEM}, as the drivers report it, or {@code EAGAIN}) is
     * {@code -EAGAIN} — the caller drives progress and retries (docs/API.md); any other refusal
     * (e.g. {@code EINVAL}: an opcode or flag the device does not take) is that errno, so a
     * caller never retries forever what can never be accepted.
     */
    static int postRefused(int rc) {
        return rc == Errno.ENOMEM || rc == Errno.EAGAIN || rc <= 0 ? -Errno.EAGAIN : -rc;
    }

    /**
     * {@code strerror} of a verbs completion error: the work-completion status's name.
     *
     * @param statusName {@code ibv_wc_status_str(provErrno)} where the library is loaded, else {@code null}
     */
    static String describe(int provErrno, String statusName) {
        String name = statusName != null ? statusName : "status " + provErrno;
        return "work completion failed: " + name + " (ibv_wc_status " + provErrno + ")";
    }
}
