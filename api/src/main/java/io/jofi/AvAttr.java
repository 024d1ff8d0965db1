package io.jofi;

import java.util.Objects;

/**
 * Address vector attributes: libfabric's {@code struct fi_av_attr}, the argument of
 * {@code Domain.openAv} ({@code fi_av_open}, see fi_av(3)); {@code map_addr} is not carried.
 * Mutable, with fluent setters.
 */
public class AvAttr {
    private AvType type = AvType.UNSPEC;
    private int rxCtxBits;
    private long count;
    private long epPerNode;
    private String name;
    private long flags;

    /**
     * Creates attributes with every number 0, every enum at its default and every reference null.
     */
    public AvAttr() {
    }

    /** {@code type}: the address vector type; {@link AvType#UNSPEC} lets the provider choose. */
    public AvType type() {
        return type;
    }

    /** Sets {@link #type()} ({@code type}), never null; returns this. */
    public AvAttr type(AvType value) {
        this.type = Objects.requireNonNull(value, "type");
        return this;
    }

    /**
     * {@code rx_ctx_bits}: bits of a fabric address that select a receive context (scalable
     * endpoints).
     */
    public int rxCtxBits() {
        return rxCtxBits;
    }

    /** Sets {@link #rxCtxBits()} ({@code rx_ctx_bits}); returns this. */
    public AvAttr rxCtxBits(int value) {
        this.rxCtxBits = value;
        return this;
    }

    /** {@code count}: the number of addresses expected to be inserted (a sizing hint). */
    public long count() {
        return count;
    }

    /** Sets {@link #count()} ({@code count}); returns this. */
    public AvAttr count(long value) {
        this.count = value;
        return this;
    }

    /** {@code ep_per_node}: the number of endpoints expected per node (a sizing hint). */
    public long epPerNode() {
        return epPerNode;
    }

    /** Sets {@link #epPerNode()} ({@code ep_per_node}); returns this. */
    public AvAttr epPerNode(long value) {
        this.epPerNode = value;
        return this;
    }

    /** {@code name}: the system name of a shared address vector; null for a private one. */
    public String name() {
        return name;
    }

    /** Sets {@link #name()} ({@code name}); returns this. */
    public AvAttr name(String value) {
        this.name = value;
        return this;
    }

    /**
     * {@code flags}: {@code FI_EVENT} (asynchronous inserts reported on the bound EQ),
     * {@code FI_READ}, {@code FI_SYMMETRIC}.
     */
    public long flags() {
        return flags;
    }

    /** Sets {@link #flags()} ({@code flags}); returns this. */
    public AvAttr flags(long value) {
        this.flags = value;
        return this;
    }

    /** A copy of these attributes. */
    public AvAttr copy() {
        AvAttr c = new AvAttr();
        c.type = type;
        c.rxCtxBits = rxCtxBits;
        c.count = count;
        c.epPerNode = epPerNode;
        c.name = name;
        c.flags = flags;
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
        AvAttr other = (AvAttr) o;
        return type == other.type && rxCtxBits == other.rxCtxBits && count == other.count
                && epPerNode == other.epPerNode && Objects.equals(name, other.name)
                && flags == other.flags;
    }

    @Override
    public int hashCode() {
        int h = 17;
        h = 31 * h + type.ordinal();
        h = 31 * h + rxCtxBits;
        h = 31 * h + Long.hashCode(count);
        h = 31 * h + Long.hashCode(epPerNode);
        h = 31 * h + Objects.hashCode(name);
        h = 31 * h + Long.hashCode(flags);
        return h;
    }

    /** The attributes in the style of {@code fi_tostr(FI_TYPE_AV_ATTR)}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(160);
        String p = AttrFormat.TAB;
        sb.append("fi_av_attr:\n");
        AttrFormat.line(sb, p, "type", type.fiName());
        AttrFormat.line(sb, p, "rx_ctx_bits", rxCtxBits);
        AttrFormat.line(sb, p, "count", AttrFormat.size(count));
        AttrFormat.line(sb, p, "ep_per_node", AttrFormat.size(epPerNode));
        AttrFormat.line(sb, p, "name", AttrFormat.str(name));
        sb.append(p).append("flags: ").append(AttrFormat.avFlags(flags));
        return sb.toString();
    }
}
