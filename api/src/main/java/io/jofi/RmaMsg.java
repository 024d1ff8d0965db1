package io.jofi;

/**
 * A reusable RMA description ({@code struct fi_msg_rma}): local buffers as in {@link Msg},
 * plus up to {@link #maxRmaIov()} remote segments {@code (addr, len, key)}.
 */
public class RmaMsg extends Msg {
    private final long[] rmaAddr;
    private final long[] rmaLen;
    private final long[] rmaKey;
    private int rmaIovCount;

    public RmaMsg() {
        this(DEFAULT_MAX_IOV);
    }

    public RmaMsg(int maxIov) {
        super(maxIov);
        rmaAddr = new long[maxIov];
        rmaLen = new long[maxIov];
        rmaKey = new long[maxIov];
    }

    /** Sets a single remote segment (count 1). */
    public RmaMsg rma(long addr, long len, long key) {
        rmaAddr[0] = addr;
        rmaLen[0] = len;
        rmaKey[0] = key;
        rmaIovCount = 1;
        return this;
    }

    /** Sets remote segment {@code i}; does not change {@link #rmaIovCount()}. */
    public RmaMsg rmaIov(int i, long addr, long len, long key) {
        rmaAddr[i] = addr;
        rmaLen[i] = len;
        rmaKey[i] = key;
        return this;
    }

    public RmaMsg rmaIovCount(int count) {
        if (count < 0 || count > rmaAddr.length) {
            throw new IllegalArgumentException("rmaIovCount " + count + " outside [0, " + rmaAddr.length + "]");
        }
        this.rmaIovCount = count;
        return this;
    }

    public long rmaAddr(int i) { return rmaAddr[i]; }
    public long rmaLen(int i) { return rmaLen[i]; }
    public long rmaKey(int i) { return rmaKey[i]; }
    public int rmaIovCount() { return rmaIovCount; }
    public int maxRmaIov() { return rmaAddr.length; }

    // Covariant overrides so that chains keep the RmaMsg type.
    @Override public RmaMsg buffer(java.nio.ByteBuffer buf, MemoryRegion desc) { super.buffer(buf, desc); return this; }
    @Override public RmaMsg iov(int i, java.nio.ByteBuffer buf, MemoryRegion desc) { super.iov(i, buf, desc); return this; }
    @Override public RmaMsg iovCount(int count) { super.iovCount(count); return this; }
    @Override public RmaMsg addr(long addr) { super.addr(addr); return this; }
    @Override public RmaMsg context(Object context) { super.context(context); return this; }
    @Override public RmaMsg data(long data) { super.data(data); return this; }
}
