package io.jofi;

import java.util.Objects;

/**
 * Completion queue attributes: libfabric's {@code struct fi_cq_attr}, the argument of
 * {@code Domain.openCq} ({@code fi_cq_open}, see fi_cq(3)). {@code CompletionQueue.attr()} returns
 * them as opened, defaults filled in. Mutable, with fluent setters.
 */
public final class CqAttr {
    private long size;
    private long flags;
    private CqFormat format = CqFormat.UNSPEC;
    private WaitObj waitObj = WaitObj.NONE;
    private int signalingVector;
    private CqWaitCond waitCond = CqWaitCond.NONE;
    private WaitSet waitSet;

    /**
     * Creates attributes with every number 0, every enum at its default and every reference null.
     */
    public CqAttr() {
    }

    /** {@code size}: the minimum number of entries; 0 lets the provider choose (1024). */
    public long size() {
        return size;
    }

    /** Sets {@link #size()} ({@code size}); returns this. */
    public CqAttr size(long value) {
        this.size = value;
        return this;
    }

    /** {@code flags}: {@code FI_AFFINITY} when {@link #signalingVector()} is valid. */
    public long flags() {
        return flags;
    }

    /** Sets {@link #flags()} ({@code flags}); returns this. */
    public CqAttr flags(long value) {
        this.flags = value;
        return this;
    }

    /** {@code format}: the completion format; {@link CqFormat#UNSPEC} by default. */
    public CqFormat format() {
        return format;
    }

    /** Sets {@link #format()} ({@code format}), never null; returns this. */
    public CqAttr format(CqFormat value) {
        this.format = Objects.requireNonNull(value, "format");
        return this;
    }

    /** {@code wait_obj}: the wait object for blocking reads; {@link WaitObj#NONE} by default. */
    public WaitObj waitObj() {
        return waitObj;
    }

    /** Sets {@link #waitObj()} ({@code wait_obj}), never null; returns this. */
    public CqAttr waitObj(WaitObj value) {
        this.waitObj = Objects.requireNonNull(value, "waitObj");
        return this;
    }

    /**
     * {@code signaling_vector}: the CPU interrupts should target, a hint valid with
     * {@code FI_AFFINITY}.
     */
    public int signalingVector() {
        return signalingVector;
    }

    /** Sets {@link #signalingVector()} ({@code signaling_vector}); returns this. */
    public CqAttr signalingVector(int value) {
        this.signalingVector = value;
        return this;
    }

    /**
     * {@code wait_cond}: how {@code sread}'s {@code cond} is read; {@link CqWaitCond#NONE} by
     * default.
     */
    public CqWaitCond waitCond() {
        return waitCond;
    }

    /** Sets {@link #waitCond()} ({@code wait_cond}), never null; returns this. */
    public CqAttr waitCond(CqWaitCond value) {
        this.waitCond = Objects.requireNonNull(value, "waitCond");
        return this;
    }

    /**
     * {@code wait_set}: the wait set to signal when {@link #waitObj()} is {@link WaitObj#SET}; null
     * otherwise.
     */
    public WaitSet waitSet() {
        return waitSet;
    }

    /** Sets {@link #waitSet()} ({@code wait_set}); returns this. */
    public CqAttr waitSet(WaitSet value) {
        this.waitSet = value;
        return this;
    }

    /** A copy of these attributes (the {@code waitSet} reference is shared). */
    public CqAttr copy() {
        CqAttr c = new CqAttr();
        c.size = size;
        c.flags = flags;
        c.format = format;
        c.waitObj = waitObj;
        c.signalingVector = signalingVector;
        c.waitCond = waitCond;
        c.waitSet = waitSet;
        return c;
    }

    /** Equal when every field is equal ({@code waitSet} by identity). */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o == null || o.getClass() != getClass()) {
            return false;
        }
        CqAttr other = (CqAttr) o;
        return size == other.size && flags == other.flags && format == other.format
                && waitObj == other.waitObj && signalingVector == other.signalingVector
                && waitCond == other.waitCond && waitSet == other.waitSet;
    }

    @Override
    public int hashCode() {
        int h = 17;
        h = 31 * h + Long.hashCode(size);
        h = 31 * h + Long.hashCode(flags);
        h = 31 * h + format.ordinal();
        h = 31 * h + waitObj.ordinal();
        h = 31 * h + signalingVector;
        h = 31 * h + waitCond.ordinal();
        h = 31 * h + System.identityHashCode(waitSet);
        return h;
    }

    /** The attributes in the style of {@code fi_tostr(FI_TYPE_CQ_ATTR)}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(192);
        String p = AttrFormat.TAB;
        sb.append("fi_cq_attr:\n");
        AttrFormat.line(sb, p, "size", AttrFormat.size(size));
        AttrFormat.line(sb, p, "flags", AttrFormat.cqFlags(flags));
        AttrFormat.line(sb, p, "format", format.fiName());
        AttrFormat.line(sb, p, "wait_obj", waitObj.fiName());
        AttrFormat.line(sb, p, "signaling_vector", signalingVector);
        AttrFormat.line(sb, p, "wait_cond", waitCond.fiName());
        sb.append(p).append("wait_set: ").append(AttrFormat.ref(waitSet));
        return sb.toString();
    }
}
