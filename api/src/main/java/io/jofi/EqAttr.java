package io.jofi;

import java.util.Objects;

/**
 * Event queue attributes: libfabric's {@code struct fi_eq_attr}, the argument of
 * {@code Fabric.openEq} ({@code fi_eq_open}, see fi_eq(3)). {@code EventQueue.attr()} returns them
 * as opened, defaults filled in. Mutable, with fluent setters.
 */
public final class EqAttr {
    private long size;
    private long flags;
    private WaitObj waitObj = WaitObj.NONE;
    private int signalingVector;
    private WaitSet waitSet;

    /**
     * Creates attributes with every number 0, every enum at its default and every reference null.
     */
    public EqAttr() {
    }

    /** {@code size}: the most events the queue holds; 0 lets the provider choose (1024). */
    public long size() {
        return size;
    }

    /** Sets {@link #size()} ({@code size}); returns this. */
    public EqAttr size(long value) {
        this.size = value;
        return this;
    }

    /**
     * {@code flags}: {@code FI_WRITE} to allow {@code EventQueue.write}, {@code FI_AFFINITY} when
     * {@link #signalingVector()} is valid.
     */
    public long flags() {
        return flags;
    }

    /** Sets {@link #flags()} ({@code flags}); returns this. */
    public EqAttr flags(long value) {
        this.flags = value;
        return this;
    }

    /** {@code wait_obj}: the wait object for blocking reads; {@link WaitObj#NONE} by default. */
    public WaitObj waitObj() {
        return waitObj;
    }

    /** Sets {@link #waitObj()} ({@code wait_obj}), never null; returns this. */
    public EqAttr waitObj(WaitObj value) {
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
    public EqAttr signalingVector(int value) {
        this.signalingVector = value;
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
    public EqAttr waitSet(WaitSet value) {
        this.waitSet = value;
        return this;
    }

    /** A copy of these attributes (the {@code waitSet} reference is shared). */
    public EqAttr copy() {
        EqAttr c = new EqAttr();
        c.size = size;
        c.flags = flags;
        c.waitObj = waitObj;
        c.signalingVector = signalingVector;
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
        EqAttr other = (EqAttr) o;
        return size == other.size && flags == other.flags && waitObj == other.waitObj
                && signalingVector == other.signalingVector && waitSet == other.waitSet;
    }

    @Override
    public int hashCode() {
        int h = 17;
        h = 31 * h + Long.hashCode(size);
        h = 31 * h + Long.hashCode(flags);
        h = 31 * h + waitObj.ordinal();
        h = 31 * h + signalingVector;
        h = 31 * h + System.identityHashCode(waitSet);
        return h;
    }

    /** In the style of {@code fi_tostr}: {@code fi_eq_attr:} and one indented line per field. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(160);
        String p = AttrFormat.TAB;
        sb.append("fi_eq_attr:\n");
        AttrFormat.line(sb, p, "size", AttrFormat.size(size));
        AttrFormat.line(sb, p, "flags", AttrFormat.eqFlags(flags));
        AttrFormat.line(sb, p, "wait_obj", waitObj.fiName());
        AttrFormat.line(sb, p, "signaling_vector", signalingVector);
        sb.append(p).append("wait_set: ").append(AttrFormat.ref(waitSet));
        return sb.toString();
    }
}
