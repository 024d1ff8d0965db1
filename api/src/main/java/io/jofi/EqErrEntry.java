package io.jofi;

/**
 * An error event ({@code struct fi_eq_err_entry}), reusable. Error-data ownership follows
 * R3 as for {@link CqErrEntry}: a caller buffer set with {@link #errData(byte[])} receives a
 * copy of at most its length; otherwise {@link #errData()} is provider-owned and valid until
 * the next read on that queue. A reject (R14) reports {@code err == ECONNREFUSED} with the
 * reject data in {@code errData}.
 */
public class EqErrEntry {
    private Fid fid;
    private Object context;
    private long data;
    private int err;
    private int provErrno;
    private byte[] callerErrData;
    private byte[] errData;
    private int errDataSize;

    public EqErrEntry() {
    }

    public Fid fid() { return fid; }
    public Object context() { return context; }
    /** E.g. for a failed AV insert: the index of the failed entry. */
    public long data() { return data; }
    /** The positive {@link Errno} value. */
    public int err() { return err; }
    public int provErrno() { return provErrno; }
    public byte[] errData() { return callerErrData != null ? callerErrData : errData; }
    public int errDataSize() { return errDataSize; }

    /** Sets (or with {@code null} clears) a caller-owned error-data buffer. */
    public EqErrEntry errData(byte[] caller) {
        this.callerErrData = caller;
        return this;
    }

    /** Sets every field: for providers and the util layer (copy rules of R3). */
    public void set(Fid fid, Object context, long data, int err, int provErrno, byte[] errData, int errDataSize) {
        this.fid = fid;
        this.context = context;
        this.data = data;
        this.err = err;
        this.provErrno = provErrno;
        if (callerErrData != null) {
            int n = errData == null ? 0 : Math.min(Math.min(errDataSize, errData.length), callerErrData.length);
            if (n > 0) {
                System.arraycopy(errData, 0, callerErrData, 0, n);
            }
            this.errData = null;
            this.errDataSize = n;
        } else {
            this.errData = errData;
            this.errDataSize = errData == null ? 0 : Math.min(errDataSize, errData.length);
        }
    }

    @Override
    public String toString() {
        return "EqErrEntry{fid=" + fid + ", context=" + context + ", data=" + data + ", err=" + Errno.name(err)
                + ", provErrno=" + provErrno + ", errDataSize=" + errDataSize + '}';
    }
}
