package io.jofi;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A completion queue (fi_cq(3)). Data-path calls return {@code >= 0} on success and
 * {@code -Errno.X} on failure; they never throw for fabric conditions and never allocate.
 *
 * <ul>
 * <li><b>R1</b> a non-blocking read of an empty queue returns {@code -EAGAIN}; a CQ bound to
 *     nothing follows every rule. {@code read(buf, 0)} drives progress and returns {@code 0}
 *     if entries wait, {@code -EAGAIN} if none, {@code -EAVAIL} if an error is at the head.</li>
 * <li><b>R2</b> errors are out of band: {@code read} returns the successful entries before an
 *     error, then {@code -EAVAIL} until {@link #readErr} takes it.</li>
 * <li><b>R4/R5</b> blocking reads: see {@link #sread}.</li>
 * <li><b>R6</b> {@code attr().size()} entries fit; a posted operation reserves room for its
 *     completion; unsolicited completions that find the CQ full put it into the overrun
 *     state ({@code -EOVERRUN} after the valid entries).</li>
 * <li><b>R10</b> {@link #readFrom} reports each sender's {@code fi_addr_t}.</li>
 * </ul>
 */
@ProviderType
public interface CompletionQueue extends Fid {
    /**
     * {@code fi_cq_read}: copies up to {@code count} completions into {@code buf[0..count)}.
     *
     * @return the number read (&gt; 0), or {@code -EAGAIN} (empty), {@code -EAVAIL} (an error
     *         completion at the head), {@code -EOVERRUN} (overrun, after every valid entry),
     *         {@code -EINVAL} (bad arguments), {@code -ENODEV} (provider departed and
     *         nothing is left to drain)
     */
    int read(CqEntry[] buf, int count);

    /**
     * {@code fi_cq_readfrom}: as {@link #read}, and {@code srcAddr[i]} is the sender's
     * {@code fi_addr_t} of entry {@code i}, or {@code Fi.FI_ADDR_NOTAVAIL} (R10).
     */
    int readFrom(CqEntry[] buf, int count, long[] srcAddr);

    /**
     * {@code fi_cq_readerr}: takes the error completion at the head (R2, R3).
     *
     * @return {@code 1}, or {@code -EAGAIN} when no error is queued
     */
    int readErr(CqErrEntry buf, long flags);

    /**
     * {@code fi_cq_sread}: as {@link #read}, blocking until something is readable.
     * A negative {@code timeoutMs} waits forever. With {@code CqWaitCond.THRESHOLD},
     * {@code cond} is the number of entries to wait for (R5). Returns {@code -EAGAIN} on
     * timeout, on {@link #signal()}, or when the waiting thread is interrupted (its interrupt
     * status is kept) (R4); {@code -ENOSYS} at once on a queue with {@code WaitObj.NONE} or
     * {@code WaitObj.SET}.
     */
    int sread(CqEntry[] buf, int count, long cond, int timeoutMs);

    /** {@code fi_cq_sreadfrom}: {@link #sread} with sender addresses (R10). */
    int sreadFrom(CqEntry[] buf, int count, long[] srcAddr, long cond, int timeoutMs);

    /**
     * {@code fi_cq_signal}: wakes a thread blocked in {@code sread}, which returns
     * {@code -EAGAIN}; remembered when nobody waits (R4).
     *
     * @return {@code 0}, or {@code -ENOSYS} without a wait object
     */
    int signal();

    /** {@code fi_cq_strerror}: a sentence for a provider-specific error (R3). */
    String strerror(int provErrno, byte[] errData);

    /**
     * {@code fi_control(FI_GETWAIT)}.
     *
     * @throws FabricException {@link Errno#ENOSYS} for {@code WaitObj.NONE}, {@code UNSPEC},
     *         {@code YIELD} and {@code SET}
     */
    WaitObject getWait() throws FabricException;

    /** The attributes as opened, defaults filled in; {@code size()} is the capacity allocated. */
    CqAttr attr();
}
