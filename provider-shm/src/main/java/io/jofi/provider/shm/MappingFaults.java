package io.jofi.provider.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Recognises and attributes memory faults on mapped files (issue 12 item 16): a region,
 * bounce-buffer or registration file truncated while mapped makes the next access beyond its
 * new end raise SIGBUS, which the JVM turns into a {@link InternalError} "a fault occurred in
 * a (recent) unsafe memory access operation".
 * <p>
 * Java 17 raises it <em>asynchronously</em> in compiled code: the faulting access returns
 * (a load yields garbage, a store is lost) and the error is thrown at the thread's next
 * transition into the VM — possibly after the method that did the access has returned, so a
 * {@code catch} around the access does not see it. Hence: the shm progress step catches it
 * around its whole pass (so the AUTO thread and MANUAL progress inside {@code cq.read}
 * survive it), and whoever catches it does not trust where it surfaced but asks which
 * mapping is now shorter than what was mapped ({@link #shorter}): that peer is failed with
 * {@code EIO}, or our endpoint when it is our own region. {@link #deliverPending()} forces a
 * pending fault out at a chosen point (inside a {@code try}) once a truncation has been
 * seen, e.g. by the periodic check.
 */
final class MappingFaults {
    /** Larger than any TLAB fast path: its allocation enters the VM, which raises a pending fault. */
    private static final int SLOW_PATH_BYTES = 2 << 20;

    private MappingFaults() {
    }

    /** Whether {@code t} is the JVM's report of a fault on mapped memory. */
    static boolean isFault(Throwable t) {
        return t instanceof InternalError && t.getMessage() != null && t.getMessage().contains("unsafe memory access");
    }

    /**
     * Whether the file at {@code file} is now shorter than {@code end}, the end of what was
     * mapped of it (a missing file counts as not truncated: its owner removed it, and the
     * pages of an unlinked file stay valid).
     */
    static boolean shorter(Path file, long end) {
        try {
            return Files.size(file) < end;
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException | RuntimeException e) {
            return Files.exists(file, LinkOption.NOFOLLOW_LINKS);
        }
    }

    /**
     * Makes this thread raise a fault still pending from an earlier access, here: a slow-path
     * allocation enters the VM, which throws pending asynchronous errors. Off the data path:
     * only once a truncation has been seen.
     *
     * @return the fault that was pending, or null
     */
    static InternalError deliverPending() {
        try {
            byte[] probe = new byte[SLOW_PATH_BYTES];
            return probe.length < 0 ? new InternalError() : null;
        } catch (InternalError e) {
            if (isFault(e)) {
                return e;
            }
            throw e;
        }
    }
}
