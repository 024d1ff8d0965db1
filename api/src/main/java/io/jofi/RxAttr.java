package io.jofi;

import java.util.Objects;

/**
 * Receive context attributes: libfabric's {@code struct fi_rx_attr}, the {@code rx_attr} of an
 * {@link Info} (see fi_getinfo(3), fi_endpoint(3)). Mutable, with fluent setters; {@code size_t}
 * fields are {@code long}s and are printed unsigned.
 */
public class RxAttr {
    private long caps;
    private long mode;
    private long opFlags;
    private long msgOrder;
    private long compOrder;
    private long totalBufferedRecv;
    private long size;
    private long iovLimit;

    /**
     * Creates attributes with every number 0, every enum at its default and every reference null.
     */
    public RxAttr() {
    }

    /**
     * {@code caps}: capabilities of the receive side ({@code Fi.FI_MSG}, {@code FI_RECV},
     * {@code FI_SOURCE}, ...).
     */
    public long caps() {
        return caps;
    }

    /** Sets {@link #caps()} ({@code caps}); returns this. */
    public RxAttr caps(long value) {
        this.caps = value;
        return this;
    }

    /** {@code mode}: mode bits the provider needs the application to honour on receives. */
    public long mode() {
        return mode;
    }

    /** Sets {@link #mode()} ({@code mode}); returns this. */
    public RxAttr mode(long value) {
        this.mode = value;
        return this;
    }

    /**
     * {@code op_flags}: default operation flags of receives ({@code FI_COMPLETION},
     * {@code FI_MULTI_RECV}, ...).
     */
    public long opFlags() {
        return opFlags;
    }

    /** Sets {@link #opFlags()} ({@code op_flags}); returns this. */
    public RxAttr opFlags(long value) {
        this.opFlags = value;
        return this;
    }

    /**
     * {@code msg_order}: message ordering guaranteed between receives ({@code FI_ORDER_*} bits).
     */
    public long msgOrder() {
        return msgOrder;
    }

    /** Sets {@link #msgOrder()} ({@code msg_order}); returns this. */
    public RxAttr msgOrder(long value) {
        this.msgOrder = value;
        return this;
    }

    /**
     * {@code comp_order}: completion ordering ({@code FI_ORDER_NONE}, {@code FI_ORDER_STRICT},
     * {@code FI_ORDER_DATA}).
     */
    public long compOrder() {
        return compOrder;
    }

    /** Sets {@link #compOrder()} ({@code comp_order}); returns this. */
    public RxAttr compOrder(long value) {
        this.compOrder = value;
        return this;
    }

    /**
     * {@code total_buffered_recv}: bytes the provider may buffer for messages that arrive before a
     * receive is posted.
     */
    public long totalBufferedRecv() {
        return totalBufferedRecv;
    }

    /** Sets {@link #totalBufferedRecv()} ({@code total_buffered_recv}); returns this. */
    public RxAttr totalBufferedRecv(long value) {
        this.totalBufferedRecv = value;
        return this;
    }

    /** {@code size}: the number of receives that may be posted at once. */
    public long size() {
        return size;
    }

    /** Sets {@link #size()} ({@code size}); returns this. */
    public RxAttr size(long value) {
        this.size = value;
        return this;
    }

    /** {@code iov_limit}: the most buffers one receive may scatter into. */
    public long iovLimit() {
        return iovLimit;
    }

    /** Sets {@link #iovLimit()} ({@code iov_limit}); returns this. */
    public RxAttr iovLimit(long value) {
        this.iovLimit = value;
        return this;
    }

    /** A copy of these attributes. */
    public RxAttr copy() {
        RxAttr c = new RxAttr();
        c.caps = caps;
        c.mode = mode;
        c.opFlags = opFlags;
        c.msgOrder = msgOrder;
        c.compOrder = compOrder;
        c.totalBufferedRecv = totalBufferedRecv;
        c.size = size;
        c.iovLimit = iovLimit;
        return c;
    }

    /** Equal when every field is equal. */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o == null || o.getClass() != getClass()) {
            return false;
        }
        RxAttr other = (RxAttr) o;
        return caps == other.caps && mode == other.mode && opFlags == other.opFlags
                && msgOrder == other.msgOrder && compOrder == other.compOrder
                && totalBufferedRecv == other.totalBufferedRecv && size == other.size
                && iovLimit == other.iovLimit;
    }

    @Override
    public int hashCode() {
        int h = 17;
        h = 31 * h + Long.hashCode(caps);
        h = 31 * h + Long.hashCode(mode);
        h = 31 * h + Long.hashCode(opFlags);
        h = 31 * h + Long.hashCode(msgOrder);
        h = 31 * h + Long.hashCode(compOrder);
        h = 31 * h + Long.hashCode(totalBufferedRecv);
        h = 31 * h + Long.hashCode(size);
        h = 31 * h + Long.hashCode(iovLimit);
        return h;
    }

    /** Appends the {@code fi_tostr} rendering, each line starting with {@code prefix}. */
    void appendTo(StringBuilder sb, String prefix) {
        String p = prefix + AttrFormat.TAB;
        sb.append(prefix).append("fi_rx_attr:\n");
        AttrFormat.line(sb, p, "caps", AttrFormat.caps(caps));
        AttrFormat.line(sb, p, "mode", AttrFormat.mode(mode));
        AttrFormat.line(sb, p, "op_flags", AttrFormat.opFlags(opFlags));
        AttrFormat.line(sb, p, "msg_order", AttrFormat.msgOrder(msgOrder));
        AttrFormat.line(sb, p, "comp_order", AttrFormat.compOrder(compOrder));
        AttrFormat.line(sb, p, "total_buffered_recv", AttrFormat.size(totalBufferedRecv));
        AttrFormat.line(sb, p, "size", AttrFormat.size(size));
        AttrFormat.line(sb, p, "iov_limit", AttrFormat.size(iovLimit));
    }

    /**
     * The attributes as {@code fi_tostr(FI_TYPE_RX_ATTR)} prints them: {@code fi_rx_attr:} and one
     * indented line per field.
     */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(256);
        appendTo(sb, "");
        sb.setLength(sb.length() - 1); // no trailing newline
        return sb.toString();
    }
}
