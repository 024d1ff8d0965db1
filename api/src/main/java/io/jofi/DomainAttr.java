package io.jofi;

import java.util.Objects;

/**
 * Domain attributes: libfabric's {@code struct fi_domain_attr}, the {@code domain_attr} of an
 * {@link Info} (see fi_domain(3), fi_getinfo(3)). Mutable, with fluent setters; {@code size_t}
 * fields are {@code long}s and are printed unsigned.
 */
public class DomainAttr {
    private String name;
    private Threading threading = Threading.UNSPEC;
    private Progress controlProgress = Progress.UNSPEC;
    private Progress dataProgress = Progress.UNSPEC;
    private ResourceMgmt resourceMgmt = ResourceMgmt.UNSPEC;
    private AvType avType = AvType.UNSPEC;
    private long mrMode;
    private long mrKeySize;
    private long cqDataSize;
    private long cqCnt;
    private long epCnt;
    private long txCtxCnt;
    private long rxCtxCnt;
    private long maxEpTxCtx;
    private long maxEpRxCtx;
    private long maxEpStxCtx;
    private long maxEpSrxCtx;
    private long cntrCnt;
    private long mrIovLimit;
    private long caps;
    private long mode;
    private long maxErrData;
    private long mrCnt;
    private int tclass;

    /**
     * Creates attributes with every number 0, every enum at its default and every reference null.
     */
    public DomainAttr() {
    }

    /**
     * {@code name}: the domain name (for tcp, the network interface, e.g. {@code lo}); null when
     * unspecified.
     */
    public String name() {
        return name;
    }

    /** Sets {@link #name()} ({@code name}); returns this. */
    public DomainAttr name(String value) {
        this.name = value;
        return this;
    }

    /** {@code threading}: the threading model; {@link Threading#UNSPEC} by default. */
    public Threading threading() {
        return threading;
    }

    /** Sets {@link #threading()} ({@code threading}), never null; returns this. */
    public DomainAttr threading(Threading value) {
        this.threading = Objects.requireNonNull(value, "threading");
        return this;
    }

    /**
     * {@code control_progress}: progress model of control operations; {@link Progress#UNSPEC} by
     * default.
     */
    public Progress controlProgress() {
        return controlProgress;
    }

    /** Sets {@link #controlProgress()} ({@code control_progress}), never null; returns this. */
    public DomainAttr controlProgress(Progress value) {
        this.controlProgress = Objects.requireNonNull(value, "controlProgress");
        return this;
    }

    /**
     * {@code data_progress}: progress model of data transfers; {@link Progress#UNSPEC} by default.
     */
    public Progress dataProgress() {
        return dataProgress;
    }

    /** Sets {@link #dataProgress()} ({@code data_progress}), never null; returns this. */
    public DomainAttr dataProgress(Progress value) {
        this.dataProgress = Objects.requireNonNull(value, "dataProgress");
        return this;
    }

    /**
     * {@code resource_mgmt}: whether the provider protects queues from overruns;
     * {@link ResourceMgmt#UNSPEC} by default.
     */
    public ResourceMgmt resourceMgmt() {
        return resourceMgmt;
    }

    /** Sets {@link #resourceMgmt()} ({@code resource_mgmt}), never null; returns this. */
    public DomainAttr resourceMgmt(ResourceMgmt value) {
        this.resourceMgmt = Objects.requireNonNull(value, "resourceMgmt");
        return this;
    }

    /**
     * {@code av_type}: the address vector type the domain supports; {@link AvType#UNSPEC} by
     * default.
     */
    public AvType avType() {
        return avType;
    }

    /** Sets {@link #avType()} ({@code av_type}), never null; returns this. */
    public DomainAttr avType(AvType value) {
        this.avType = Objects.requireNonNull(value, "avType");
        return this;
    }

    /**
     * {@code mr_mode}: memory registration mode bits ({@code FI_MR_LOCAL}, {@code FI_MR_VIRT_ADDR},
     * {@code FI_MR_PROV_KEY}, ...).
     */
    public long mrMode() {
        return mrMode;
    }

    /** Sets {@link #mrMode()} ({@code mr_mode}); returns this. */
    public DomainAttr mrMode(long value) {
        this.mrMode = value;
        return this;
    }

    /** {@code mr_key_size}: bytes in a memory region key. */
    public long mrKeySize() {
        return mrKeySize;
    }

    /** Sets {@link #mrKeySize()} ({@code mr_key_size}); returns this. */
    public DomainAttr mrKeySize(long value) {
        this.mrKeySize = value;
        return this;
    }

    /** {@code cq_data_size}: bytes of remote CQ data a transfer may carry. */
    public long cqDataSize() {
        return cqDataSize;
    }

    /** Sets {@link #cqDataSize()} ({@code cq_data_size}); returns this. */
    public DomainAttr cqDataSize(long value) {
        this.cqDataSize = value;
        return this;
    }

    /** {@code cq_cnt}: the number of completion queues the domain supports. */
    public long cqCnt() {
        return cqCnt;
    }

    /** Sets {@link #cqCnt()} ({@code cq_cnt}); returns this. */
    public DomainAttr cqCnt(long value) {
        this.cqCnt = value;
        return this;
    }

    /** {@code ep_cnt}: the number of endpoints the domain supports. */
    public long epCnt() {
        return epCnt;
    }

    /** Sets {@link #epCnt()} ({@code ep_cnt}); returns this. */
    public DomainAttr epCnt(long value) {
        this.epCnt = value;
        return this;
    }

    /** {@code tx_ctx_cnt}: the number of transmit contexts the domain supports. */
    public long txCtxCnt() {
        return txCtxCnt;
    }

    /** Sets {@link #txCtxCnt()} ({@code tx_ctx_cnt}); returns this. */
    public DomainAttr txCtxCnt(long value) {
        this.txCtxCnt = value;
        return this;
    }

    /** {@code rx_ctx_cnt}: the number of receive contexts the domain supports. */
    public long rxCtxCnt() {
        return rxCtxCnt;
    }

    /** Sets {@link #rxCtxCnt()} ({@code rx_ctx_cnt}); returns this. */
    public DomainAttr rxCtxCnt(long value) {
        this.rxCtxCnt = value;
        return this;
    }

    /** {@code max_ep_tx_ctx}: the most transmit contexts one endpoint may have. */
    public long maxEpTxCtx() {
        return maxEpTxCtx;
    }

    /** Sets {@link #maxEpTxCtx()} ({@code max_ep_tx_ctx}); returns this. */
    public DomainAttr maxEpTxCtx(long value) {
        this.maxEpTxCtx = value;
        return this;
    }

    /** {@code max_ep_rx_ctx}: the most receive contexts one endpoint may have. */
    public long maxEpRxCtx() {
        return maxEpRxCtx;
    }

    /** Sets {@link #maxEpRxCtx()} ({@code max_ep_rx_ctx}); returns this. */
    public DomainAttr maxEpRxCtx(long value) {
        this.maxEpRxCtx = value;
        return this;
    }

    /** {@code max_ep_stx_ctx}: the most endpoints that may share one transmit context. */
    public long maxEpStxCtx() {
        return maxEpStxCtx;
    }

    /** Sets {@link #maxEpStxCtx()} ({@code max_ep_stx_ctx}); returns this. */
    public DomainAttr maxEpStxCtx(long value) {
        this.maxEpStxCtx = value;
        return this;
    }

    /** {@code max_ep_srx_ctx}: the most endpoints that may share one receive context. */
    public long maxEpSrxCtx() {
        return maxEpSrxCtx;
    }

    /** Sets {@link #maxEpSrxCtx()} ({@code max_ep_srx_ctx}); returns this. */
    public DomainAttr maxEpSrxCtx(long value) {
        this.maxEpSrxCtx = value;
        return this;
    }

    /** {@code cntr_cnt}: the number of counters the domain supports. */
    public long cntrCnt() {
        return cntrCnt;
    }

    /** Sets {@link #cntrCnt()} ({@code cntr_cnt}); returns this. */
    public DomainAttr cntrCnt(long value) {
        this.cntrCnt = value;
        return this;
    }

    /** {@code mr_iov_limit}: the most buffers one memory registration may cover. */
    public long mrIovLimit() {
        return mrIovLimit;
    }

    /** Sets {@link #mrIovLimit()} ({@code mr_iov_limit}); returns this. */
    public DomainAttr mrIovLimit(long value) {
        this.mrIovLimit = value;
        return this;
    }

    /**
     * {@code caps}: domain-level capabilities ({@code FI_LOCAL_COMM}, {@code FI_REMOTE_COMM},
     * {@code FI_SHARED_AV}).
     */
    public long caps() {
        return caps;
    }

    /** Sets {@link #caps()} ({@code caps}); returns this. */
    public DomainAttr caps(long value) {
        this.caps = value;
        return this;
    }

    /** {@code mode}: domain-level mode bits. */
    public long mode() {
        return mode;
    }

    /** Sets {@link #mode()} ({@code mode}); returns this. */
    public DomainAttr mode(long value) {
        this.mode = value;
        return this;
    }

    /** {@code max_err_data}: the most bytes of provider error data a completion error may carry. */
    public long maxErrData() {
        return maxErrData;
    }

    /** Sets {@link #maxErrData()} ({@code max_err_data}); returns this. */
    public DomainAttr maxErrData(long value) {
        this.maxErrData = value;
        return this;
    }

    /** {@code mr_cnt}: the number of memory regions the domain supports. */
    public long mrCnt() {
        return mrCnt;
    }

    /** Sets {@link #mrCnt()} ({@code mr_cnt}); returns this. */
    public DomainAttr mrCnt(long value) {
        this.mrCnt = value;
        return this;
    }

    /** {@code tclass}: traffic class ({@code FI_TC_*}), 0 when unspecified. */
    public int tclass() {
        return tclass;
    }

    /** Sets {@link #tclass()} ({@code tclass}); returns this. */
    public DomainAttr tclass(int value) {
        this.tclass = value;
        return this;
    }

    /** A copy of these attributes. */
    public DomainAttr copy() {
        DomainAttr c = new DomainAttr();
        c.name = name;
        c.threading = threading;
        c.controlProgress = controlProgress;
        c.dataProgress = dataProgress;
        c.resourceMgmt = resourceMgmt;
        c.avType = avType;
        c.mrMode = mrMode;
        c.mrKeySize = mrKeySize;
        c.cqDataSize = cqDataSize;
        c.cqCnt = cqCnt;
        c.epCnt = epCnt;
        c.txCtxCnt = txCtxCnt;
        c.rxCtxCnt = rxCtxCnt;
        c.maxEpTxCtx = maxEpTxCtx;
        c.maxEpRxCtx = maxEpRxCtx;
        c.maxEpStxCtx = maxEpStxCtx;
        c.maxEpSrxCtx = maxEpSrxCtx;
        c.cntrCnt = cntrCnt;
        c.mrIovLimit = mrIovLimit;
        c.caps = caps;
        c.mode = mode;
        c.maxErrData = maxErrData;
        c.mrCnt = mrCnt;
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
        DomainAttr other = (DomainAttr) o;
        return Objects.equals(name, other.name) && threading == other.threading
                && controlProgress == other.controlProgress && dataProgress == other.dataProgress
                && resourceMgmt == other.resourceMgmt && avType == other.avType
                && mrMode == other.mrMode && mrKeySize == other.mrKeySize
                && cqDataSize == other.cqDataSize && cqCnt == other.cqCnt && epCnt == other.epCnt
                && txCtxCnt == other.txCtxCnt && rxCtxCnt == other.rxCtxCnt
                && maxEpTxCtx == other.maxEpTxCtx && maxEpRxCtx == other.maxEpRxCtx
                && maxEpStxCtx == other.maxEpStxCtx && maxEpSrxCtx == other.maxEpSrxCtx
                && cntrCnt == other.cntrCnt && mrIovLimit == other.mrIovLimit && caps == other.caps
                && mode == other.mode && maxErrData == other.maxErrData && mrCnt == other.mrCnt
                && tclass == other.tclass;
    }

    @Override
    public int hashCode() {
        int h = 17;
        h = 31 * h + Objects.hashCode(name);
        h = 31 * h + threading.ordinal();
        h = 31 * h + controlProgress.ordinal();
        h = 31 * h + dataProgress.ordinal();
        h = 31 * h + resourceMgmt.ordinal();
        h = 31 * h + avType.ordinal();
        h = 31 * h + Long.hashCode(mrMode);
        h = 31 * h + Long.hashCode(mrKeySize);
        h = 31 * h + Long.hashCode(cqDataSize);
        h = 31 * h + Long.hashCode(cqCnt);
        h = 31 * h + Long.hashCode(epCnt);
        h = 31 * h + Long.hashCode(txCtxCnt);
        h = 31 * h + Long.hashCode(rxCtxCnt);
        h = 31 * h + Long.hashCode(maxEpTxCtx);
        h = 31 * h + Long.hashCode(maxEpRxCtx);
        h = 31 * h + Long.hashCode(maxEpStxCtx);
        h = 31 * h + Long.hashCode(maxEpSrxCtx);
        h = 31 * h + Long.hashCode(cntrCnt);
        h = 31 * h + Long.hashCode(mrIovLimit);
        h = 31 * h + Long.hashCode(caps);
        h = 31 * h + Long.hashCode(mode);
        h = 31 * h + Long.hashCode(maxErrData);
        h = 31 * h + Long.hashCode(mrCnt);
        h = 31 * h + tclass;
        return h;
    }

    /** Appends the {@code fi_tostr} rendering, each line starting with {@code prefix}. */
    void appendTo(StringBuilder sb, String prefix) {
        String p = prefix + AttrFormat.TAB;
        sb.append(prefix).append("fi_domain_attr:\n");
        AttrFormat.line(sb, p, "name", AttrFormat.str(name));
        AttrFormat.line(sb, p, "threading", threading.fiName());
        AttrFormat.line(sb, p, "control_progress", controlProgress.fiName());
        AttrFormat.line(sb, p, "data_progress", dataProgress.fiName());
        AttrFormat.line(sb, p, "resource_mgmt", resourceMgmt.fiName());
        AttrFormat.line(sb, p, "av_type", avType.fiName());
        AttrFormat.line(sb, p, "mr_mode", AttrFormat.mrMode(mrMode));
        AttrFormat.line(sb, p, "mr_key_size", AttrFormat.size(mrKeySize));
        AttrFormat.line(sb, p, "cq_data_size", AttrFormat.size(cqDataSize));
        AttrFormat.line(sb, p, "cq_cnt", AttrFormat.size(cqCnt));
        AttrFormat.line(sb, p, "ep_cnt", AttrFormat.size(epCnt));
        AttrFormat.line(sb, p, "tx_ctx_cnt", AttrFormat.size(txCtxCnt));
        AttrFormat.line(sb, p, "rx_ctx_cnt", AttrFormat.size(rxCtxCnt));
        AttrFormat.line(sb, p, "max_ep_tx_ctx", AttrFormat.size(maxEpTxCtx));
        AttrFormat.line(sb, p, "max_ep_rx_ctx", AttrFormat.size(maxEpRxCtx));
        AttrFormat.line(sb, p, "max_ep_stx_ctx", AttrFormat.size(maxEpStxCtx));
        AttrFormat.line(sb, p, "max_ep_srx_ctx", AttrFormat.size(maxEpSrxCtx));
        AttrFormat.line(sb, p, "cntr_cnt", AttrFormat.size(cntrCnt));
        AttrFormat.line(sb, p, "mr_iov_limit", AttrFormat.size(mrIovLimit));
        AttrFormat.line(sb, p, "caps", AttrFormat.caps(caps));
        AttrFormat.line(sb, p, "mode", AttrFormat.mode(mode));
        AttrFormat.line(sb, p, "max_err_data", AttrFormat.size(maxErrData));
        AttrFormat.line(sb, p, "mr_cnt", AttrFormat.size(mrCnt));
        AttrFormat.line(sb, p, "tclass", AttrFormat.hex(tclass));
    }

    /**
     * The attributes as {@code fi_tostr(FI_TYPE_DOMAIN_ATTR)} prints them:
     * {@code fi_domain_attr:} and one indented line per field.
     */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(256);
        appendTo(sb, "");
        sb.setLength(sb.length() - 1); // no trailing newline
        return sb.toString();
    }
}
