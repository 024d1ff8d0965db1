package io.jofi;

import java.nio.ByteBuffer;

/**
 * An error completion ({@code struct fi_cq_err_entry}), reusable.
 *
 * <p><b>R3</b>: when the caller set its own buffer with {@link #errData(byte[])}, the queue
 * copies at most that buffer's length of error data into it and sets {@link #errDataSize()};
 * otherwise {@link #errData()} returns a provider-owned array that stays valid until the next
 * read on that queue.
 */
public class CqErrEntry extends CqEntry {
    private long olen;
    private int err;
    private int provErrno;
    private byte[] callerErrData;
    private byte[] errData;
    private int errDataSize;

    public CqErrEntry() {
    }

    /** Overflow length: bytes that did not fit, e.g. of a truncated message (R12). */
    public long olen() { return olen; }

    /** The positive {@link Errno} value. */
    public int err() { return err; }

    /** The provider-specific error number ({@code prov_errno}). */
    public int provErrno() { return provErrno; }

    /** The error data: the caller's buffer if one was set, else the provider's array (R3). */
    public byte[] errData() { return callerErrData != null ? callerErrData : errData; }

    /** Valid bytes in {@link #errData()}. */
    public int errDataSize() { return errDataSize; }

    /** Sets (or with {@code null} clears) a caller-owned error-data buffer (err_data_size on input). */
    public CqErrEntry errData(byte[] caller) {
        this.callerErrData = caller;
        return this;
    }

    /**
     * Sets the error part: for providers and the util layer. {@code data[0..size)} is copied
     * into the caller's buffer when there is one (at most its length), else kept by reference.
     */
    public void setError(long olen, int err, int provErrno, byte[] data, int size) {
        this.olen = olen;
        this.err = err;
        this.provErrno = provErrno;
        if (callerErrData != null) {
            int n = data == null ? 0 : Math.min(Math.min(size, data.length), callerErrData.length);
            if (n > 0) {
                System.arraycopy(data, 0, callerErrData, 0, n);
            }
            this.errData = null;
            this.errDataSize = n;
        } else {
            this.errData = data;
            this.errDataSize = data == null ? 0 : Math.min(size, data.length);
        }
    }

    /** Sets every field of an error completion at once. */
    public void setAll(Object context, long flags, long len, ByteBuffer buf, int bufOffset, long data, long tag,
                       long olen, int err, int provErrno, byte[] errData, int errDataSize) {
        set(context, flags, len, buf, bufOffset, data, tag);
        setError(olen, err, provErrno, errData, errDataSize);
    }

    @Override
    public String toString() {
        return "CqErrEntry{context=" + context() + ", flags=0x" + Long.toHexString(flags()) + ", len=" + len()
                + ", olen=" + olen + ", err=" + Errno.name(err) + ", provErrno=" + provErrno
                + ", errDataSize=" + errDataSize + '}';
    }
}
