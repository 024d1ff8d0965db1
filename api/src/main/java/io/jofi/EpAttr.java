package io.jofi;

import java.util.Objects;

/**
 * Endpoint attributes: libfabric's {@code struct fi_ep_attr}, the {@code ep_attr} of an
 * {@link Info} (see fi_endpoint(3), fi_getinfo(3)). Mutable, with fluent setters; {@code size_t}
 * fields are {@code long}s and are printed unsigned ({@code -1L} is {@code SIZE_MAX}).
 */
public class EpAttr {
    private EpType type = EpType.UNSPEC;
    private int protocol;
    private int protoVersion;
    private long maxMsgSize;
    private long msgPrefixSize;
    private long maxOrderRawSize;
    private long maxOrderWarSize;
    private long maxOrderWawSize;
    private long memTagFormat;
    private long txCtxCnt;
    private long rxCtxCnt;

    /**
     * Creates attributes with every number 0, every enum at its default and every reference null.
     */
    public EpAttr() {
    }

    /** {@code type}: the endpoint type; {@link EpType#UNSPEC} by default. */
    public EpType type() {
        return type;
    }

    /** Sets {@link #type()} ({@code type}), never null; returns this. */
    public EpAttr type(EpType value) {
        this.type = Objects.requireNonNull(value, "type");
        return this;
    }

    /**
     * {@code protocol}: the wire protocol ({@code FI_PROTO_*} value, e.g. 6 =
     * {@code FI_PROTO_SOCK_TCP}).
     */
    public int protocol() {
        return protocol;
    }

    /** Sets {@link #protocol()} ({@code protocol}); returns this. */
    public EpAttr protocol(int value) {
        this.protocol = value;
        return this;
    }

    /** {@code protocol_version}: the version of {@link #protocol()}. */
    public int protoVersion() {
        return protoVersion;
    }

    /** Sets {@link #protoVersion()} ({@code protocol_version}); returns this. */
    public EpAttr protoVersion(int value) {
        this.protoVersion = value;
        return this;
    }

    /** {@code max_msg_size}: the largest message a single operation may carry. */
    public long maxMsgSize() {
        return maxMsgSize;
    }

    /** Sets {@link #maxMsgSize()} ({@code max_msg_size}); returns this. */
    public EpAttr maxMsgSize(long value) {
        this.maxMsgSize = value;
        return this;
    }

    /**
     * {@code msg_prefix_size}: bytes of prefix space the {@code FI_MSG_PREFIX} mode reserves in
     * buffers.
     */
    public long msgPrefixSize() {
        return msgPrefixSize;
    }

    /** Sets {@link #msgPrefixSize()} ({@code msg_prefix_size}); returns this. */
    public EpAttr msgPrefixSize(long value) {
        this.msgPrefixSize = value;
        return this;
    }

    /** {@code max_order_raw_size}: the largest read-after-write ordered size. */
    public long maxOrderRawSize() {
        return maxOrderRawSize;
    }

    /** Sets {@link #maxOrderRawSize()} ({@code max_order_raw_size}); returns this. */
    public EpAttr maxOrderRawSize(long value) {
        this.maxOrderRawSize = value;
        return this;
    }

    /** {@code max_order_war_size}: the largest write-after-read ordered size. */
    public long maxOrderWarSize() {
        return maxOrderWarSize;
    }

    /** Sets {@link #maxOrderWarSize()} ({@code max_order_war_size}); returns this. */
    public EpAttr maxOrderWarSize(long value) {
        this.maxOrderWarSize = value;
        return this;
    }

    /** {@code max_order_waw_size}: the largest write-after-write ordered size. */
    public long maxOrderWawSize() {
        return maxOrderWawSize;
    }

    /** Sets {@link #maxOrderWawSize()} ({@code max_order_waw_size}); returns this. */
    public EpAttr maxOrderWawSize(long value) {
        this.maxOrderWawSize = value;
        return this;
    }

    /** {@code mem_tag_format}: the tag bit layout of tagged messages (0 = provider default). */
    public long memTagFormat() {
        return memTagFormat;
    }

    /** Sets {@link #memTagFormat()} ({@code mem_tag_format}); returns this. */
    public EpAttr memTagFormat(long value) {
        this.memTagFormat = value;
        return this;
    }

    /**
     * {@code tx_ctx_cnt}: the number of transmit contexts ({@code -1L} =
     * {@code FI_SHARED_CONTEXT}).
     */
    public long txCtxCnt() {
        return txCtxCnt;
    }

    /** Sets {@link #txCtxCnt()} ({@code tx_ctx_cnt}); returns this. */
    public EpAttr txCtxCnt(long value) {
        this.txCtxCnt = value;
        return this;
    }

    /**
     * {@code rx_ctx_cnt}: the number of receive contexts ({@code -1L} = {@code FI_SHARED_CONTEXT}).
     */
    public long rxCtxCnt() {
        return rxCtxCnt;
    }

    /** Sets {@link #rxCtxCnt()} ({@code rx_ctx_cnt}); returns this. */
    public EpAttr rxCtxCnt(long value) {
        this.rxCtxCnt = value;
        return this;
    }

    /** A copy of these attributes. */
    public EpAttr copy() {
        EpAttr c = new EpAttr();
        c.type = type;
        c.protocol = protocol;
        c.protoVersion = protoVersion;
        c.maxMsgSize = maxMsgSize;
        c.msgPrefixSize = msgPrefixSize;
        c.maxOrderRawSize = maxOrderRawSize;
        c.maxOrderWarSize = maxOrderWarSize;
        c.maxOrderWawSize = maxOrderWawSize;
        c.memTagFormat = memTagFormat;
        c.txCtxCnt = txCtxCnt;
        c.rxCtxCnt = rxCtxCnt;
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
        EpAttr other = (EpAttr) o;
        return type == other.type && protocol == other.protocol
                && protoVersion == other.protoVersion && maxMsgSize == other.maxMsgSize
                && msgPrefixSize == other.msgPrefixSize && maxOrderRawSize == other.maxOrderRawSize
                && maxOrderWarSize == other.maxOrderWarSize
                && maxOrderWawSize == other.maxOrderWawSize && memTagFormat == other.memTagFormat
                && txCtxCnt == other.txCtxCnt && rxCtxCnt == other.rxCtxCnt;
    }

    @Override
    public int hashCode() {
        int h = 17;
        h = 31 * h + type.ordinal();
        h = 31 * h + protocol;
        h = 31 * h + protoVersion;
        h = 31 * h + Long.hashCode(maxMsgSize);
        h = 31 * h + Long.hashCode(msgPrefixSize);
        h = 31 * h + Long.hashCode(maxOrderRawSize);
        h = 31 * h + Long.hashCode(maxOrderWarSize);
        h = 31 * h + Long.hashCode(maxOrderWawSize);
        h = 31 * h + Long.hashCode(memTagFormat);
        h = 31 * h + Long.hashCode(txCtxCnt);
        h = 31 * h + Long.hashCode(rxCtxCnt);
        return h;
    }

    /** Appends the {@code fi_tostr} rendering, each line starting with {@code prefix}. */
    void appendTo(StringBuilder sb, String prefix) {
        String p = prefix + AttrFormat.TAB;
        sb.append(prefix).append("fi_ep_attr:\n");
        AttrFormat.line(sb, p, "type", type.fiName());
        AttrFormat.line(sb, p, "protocol", AttrFormat.protocol(protocol));
        AttrFormat.line(sb, p, "protocol_version", Integer.toUnsignedString(protoVersion));
        AttrFormat.line(sb, p, "max_msg_size", AttrFormat.size(maxMsgSize));
        AttrFormat.line(sb, p, "msg_prefix_size", AttrFormat.size(msgPrefixSize));
        AttrFormat.line(sb, p, "max_order_raw_size", AttrFormat.size(maxOrderRawSize));
        AttrFormat.line(sb, p, "max_order_war_size", AttrFormat.size(maxOrderWarSize));
        AttrFormat.line(sb, p, "max_order_waw_size", AttrFormat.size(maxOrderWawSize));
        AttrFormat.line(sb, p, "mem_tag_format", AttrFormat.hex16(memTagFormat));
        AttrFormat.line(sb, p, "tx_ctx_cnt", AttrFormat.ctxCnt(txCtxCnt));
        AttrFormat.line(sb, p, "rx_ctx_cnt", AttrFormat.ctxCnt(rxCtxCnt));
    }

    /**
     * The attributes as {@code fi_tostr(FI_TYPE_EP_ATTR)} prints them: {@code fi_ep_attr:} and one
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
