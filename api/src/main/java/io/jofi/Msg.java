package io.jofi;

import java.nio.ByteBuffer;

/**
 * A reusable message description ({@code struct fi_msg}) for {@link MsgOps#sendMsg} and
 * {@link MsgOps#recvMsg}: up to {@link #maxIov()} buffers with their descriptors, the peer
 * address, the context and remote CQ data. Allocate once, refill per operation: the
 * {@code *Msg} calls then allocate nothing.
 */
public class Msg {
    /** Default number of buffers a message can carry (the tcp wire allows 4 RMA iovs). */
    public static final int DEFAULT_MAX_IOV = 4;

    private final ByteBuffer[] iov;
    private final MemoryRegion[] desc;
    private int iovCount;
    private long addr = Fi.FI_ADDR_UNSPEC;
    private Object context;
    private long data;

    public Msg() {
        this(DEFAULT_MAX_IOV);
    }

    public Msg(int maxIov) {
        if (maxIov < 1) {
            throw new IllegalArgumentException("maxIov must be >= 1, got " + maxIov);
        }
        this.iov = new ByteBuffer[maxIov];
        this.desc = new MemoryRegion[maxIov];
    }

    /** Sets a single buffer (iov count 1). */
    public Msg buffer(ByteBuffer buf, MemoryRegion desc) {
        this.iov[0] = buf;
        this.desc[0] = desc;
        this.iovCount = 1;
        return this;
    }

    /** Sets buffer {@code i}; does not change {@link #iovCount()}. */
    public Msg iov(int i, ByteBuffer buf, MemoryRegion desc) {
        this.iov[i] = buf;
        this.desc[i] = desc;
        return this;
    }

    public Msg iovCount(int count) {
        if (count < 0 || count > iov.length) {
            throw new IllegalArgumentException("iovCount " + count + " outside [0, " + iov.length + "]");
        }
        this.iovCount = count;
        return this;
    }

    public Msg addr(long addr) { this.addr = addr; return this; }
    public Msg context(Object context) { this.context = context; return this; }
    public Msg data(long data) { this.data = data; return this; }

    public ByteBuffer iov(int i) { return iov[i]; }
    public MemoryRegion desc(int i) { return desc[i]; }
    public int iovCount() { return iovCount; }
    public int maxIov() { return iov.length; }
    public long addr() { return addr; }
    public Object context() { return context; }
    public long data() { return data; }

    /** Total bytes of the buffers {@code [position, limit)}. */
    public long length() {
        long n = 0;
        for (int i = 0; i < iovCount; i++) {
            n += iov[i].remaining();
        }
        return n;
    }
}
