package io.jofi;

import java.util.Objects;

/**
 * Transmit context attributes: libfabric's {@code struct fi_tx_attr}, the {@code tx_attr} of an
 * {@link Info} (see fi_getinfo(3), fi_endpoint(3)). Mutable, with fluent setters; {@code size_t}
 * fields are {@code long}s and are printed unsigned.
 */
public class TxAttr {
    private long caps;
    private long mode;
    private long opFlags;
    private long msgOrder;
    private long compOrder;
    private long injectSize;
    private long size;
    private long iovLimit;
    private long rmaIovLimit;
    private int tclass;

    /**
     * Creates attributes with every number 0, every enum at its default and every reference null.
     */
    public TxAttr() {
    }

    /** {@code caps}: capabilities of the transmit side ({@code Fi.FI_MSG}, {@code FI_RMA}, ...). */
    public long caps() {
        return caps;
    }

    /** Sets {@link #caps()} ({@code caps}); returns this. */
    public TxAttr caps(long value) {
        this.caps = value;
        return this;
    }

    /** {@code mode}: mode bits the provider needs the application to honour on transmits. */
    public long mode() {
        return mode;
    }

    /** Sets {@link #mode()} ({@code mode}); returns this. */
    public TxAttr mode(long value) {
        this.mode = value;
        return this;
    }

    /**
     * {@code op_flags}: default operation flags of transmits ({@code FI_COMPLETION},
     * {@code FI_INJECT_COMPLETE}, ...).
     */
    public long opFlags() {
        return opFlags;
    }

    /** Sets {@link #opFlags()} ({@code op_flags}); returns this. */
    public TxAttr opFlags(long value) {
        this.opFlags = value;
        return this;
    }

    /**
     * {@code msg_order}: message ordering guaranteed between transmits ({@code FI_ORDER_*} bits).
     */
    public long msgOrder() {
        return msgOrder;
    }

    /** Sets {@link #msgOrder()} ({@code msg_order}); returns this. */
    public TxAttr msgOrder(long value) {
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
    public TxAttr compOrder(long value) {
        this.compOrder = value;
        return this;
    }

    /**
     * {@code inject_size}: the largest message that may be sent with {@code inject} /
     * {@code FI_INJECT}.
     */
    public long injectSize() {
        return injectSize;
    }

    /** Sets {@link #injectSize()} ({@code inject_size}); returns this. */
    public TxAttr injectSize(long value) {
        this.injectSize = value;
        return this;
    }

    /** {@code size}: the number of transmits that may be outstanding at once. */
    public long size() {
        return size;
    }

    /** Sets {@link #size()} ({@code size}); returns this. */
    public TxAttr size(long value) {
        this.size = value;
        return this;
    }

    /** {@code iov_limit}: the most buffers one transmit may gather from. */
    public long iovLimit() {
        return iovLimit;
    }

    /** Sets {@link #iovLimit()} ({@code iov_limit}); returns this. */
    public TxAttr iovLimit(long value) {
        this.iovLimit = value;
        return this;
    }

    /** {@code rma_iov_limit}: the most remote regions one RMA operation may address. */
    public long rmaIovLimit() {
        return rmaIovLimit;
    }

    /** Sets {@link #rmaIovLimit()} ({@code rma_iov_limit}); returns this. */
    public TxAttr rmaIovLimit(long value) {
        this.rmaIovLimit = value;
        return this;
    }

    /** {@code tclass}: traffic class ({@code FI_TC_*}), 0 when unspecified. */
    public int tclass() {
        return tclass;
    }

    /** Sets {@link #tclass()} ({@code tclass}); returns this. */
    public TxAttr tclass(int value) {
        this.tclass = value;
        return this;
    }

    /** A copy of these attributes. */
    public TxAttr copy() {
        TxAttr c = new TxAttr();
        c.caps = caps;
        c.mode = mode;
        c.opFlags = opFlags;
        c.msgOrder = msgOrder;
        c.compOrder = compOrder;
        c.injectSize = injectSize;
        c.size = size;
        c.iovLimit = iovLimit;
        c.rmaIovLimit = rmaIovLimit;
        c.tclass = tclass;
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
        TxAttr other = (TxAttr) o;
        return caps == other.caps && mode == other.mode && opFlags == other.opFlags
                && msgOrder == other.msgOrder && compOrder == other.compOrder
                && injectSize == other.injectSize && size == other.size
                && iovLimit == other.iovLimit && rmaIovLimit == other.rmaIovLimit
                && tclass == other.tclass;
    }

    @Override
    public int hashCode() {
        int h = 17;
        h = 31 * h + Long.hashCode(caps);
        h = 31 * h + Long.hashCode(mode);
        h = 31 * h + Long.hashCode(opFlags);
        h = 31 * h + Long.hashCode(msgOrder);
        h = 31 * h + Long.hashCode(compOrder);
        h = 31 * h + Long.hashCode(injectSize);
        h = 31 * h + Long.hashCode(size);
        h = 31 * h + Long.hashCode(iovLimit);
        h = 31 * h + Long.hashCode(rmaIovLimit);
        h = 31 * h + tclass;
        return h;
    }

    /** Appends the {@code fi_tostr} rendering, each line starting with {@code prefix}. */
    void appendTo(StringBuilder sb, String prefix) {
        String p = prefix + AttrFormat.TAB;
        sb.append(prefix).append("fi_tx_attr:\n");
        AttrFormat.line(sb, p, "caps", AttrFormat.caps(caps));
        AttrFormat.line(sb, p, "mode", AttrFormat.mode(mode));
        AttrFormat.line(sb, p, "op_flags", AttrFormat.opFlags(opFlags));
        AttrFormat.line(sb, p, "msg_order", AttrFormat.msgOrder(msgOrder));
        AttrFormat.line(sb, p, "comp_order", AttrFormat.compOrder(compOrder));
        AttrFormat.line(sb, p, "inject_size", AttrFormat.size(injectSize));
        AttrFormat.line(sb, p, "size", AttrFormat.size(size));
        AttrFormat.line(sb, p, "iov_limit", AttrFormat.size(iovLimit));
        AttrFormat.line(sb, p, "rma_iov_limit", AttrFormat.size(rmaIovLimit));
        AttrFormat.line(sb, p, "tclass", AttrFormat.hex(tclass));
    }

    /**
     * The attributes as {@code fi_tostr(FI_TYPE_TX_ATTR)} prints them: {@code fi_tx_attr:} and one
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
