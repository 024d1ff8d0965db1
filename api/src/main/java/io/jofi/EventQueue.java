package io.jofi;

import org.osgi.annotation.versioning.ProviderType;

/**
 * An event queue (fi_eq(3)): connection management, asynchronous registration and AV
 * inserts, application events. Reads return {@code 1} (one event per read) rather than a byte
 * count: the entry object carries the event whatever its shape.
 *
 * <ul>
 * <li><b>R1</b> an empty queue reads {@code -EAGAIN}; an error at the head reads
 *     {@code -EAVAIL} until {@link #readErr} takes it.</li>
 * <li><b>R7</b> at most {@code attr().size()} events; a write to a full queue puts it into
 *     the overrun state: that write and every later one return {@code -EOVERRUN}; reads
 *     return every valid event, then {@code -EOVERRUN}, and {@code readErr} an entry with
 *     {@code err == EOVERRUN}.</li>
 * <li><b>R8</b> {@link #write} only on a queue opened with {@code Fi.FI_WRITE}, else
 *     {@code -ENOSYS}. {@code FI_PEEK} returns the head without removing it and does not
 *     clear a wait object's readiness.</li>
 * </ul>
 */
@ProviderType
public interface EventQueue extends Fid {
    /** {@code fi_eq_read}; {@code flags} 0 or {@code Fi.FI_PEEK}. Returns 1 on success. */
    int read(EqEntry entry, long flags);

    /** {@code fi_eq_readerr}; returns 1, or {@code -EAGAIN} when no error is at the head. */
    int readErr(EqErrEntry entry, long flags);

    /** {@code fi_eq_write} (R8); returns 1 on success. */
    int write(EqEntry entry, long flags);

    /** {@code fi_eq_sread}: {@link #read} blocking up to {@code timeoutMs} (negative: forever) (R4). */
    int sread(EqEntry entry, int timeoutMs, long flags);

    /** {@code fi_eq_strerror}. */
    String strerror(int provErrno, byte[] errData);

    /** {@code fi_control(FI_GETWAIT)}; {@link Errno#ENOSYS} without an exportable wait object. */
    WaitObject getWait() throws FabricException;

    /** The attributes as opened, defaults filled in. */
    EqAttr attr();
}
