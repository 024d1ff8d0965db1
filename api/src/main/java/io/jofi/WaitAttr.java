package io.jofi;

import java.util.Objects;

/**
 * Wait set attributes: libfabric's {@code struct fi_wait_attr}, the argument of
 * {@code Fabric.openWaitSet} ({@code fi_wait_open}, see fi_poll(3)). Mutable, with fluent setters.
 */
public class WaitAttr {
    private WaitObj waitObj = WaitObj.NONE;
    private long flags;

    /**
     * Creates attributes with every number 0, every enum at its default and every reference null.
     */
    public WaitAttr() {
    }

    /** {@code wait_obj}: the wait object the set blocks on; {@link WaitObj#NONE} by default. */
    public WaitObj waitObj() {
        return waitObj;
    }

    /** Sets {@link #waitObj()} ({@code wait_obj}), never null; returns this. */
    public WaitAttr waitObj(WaitObj value) {
        this.waitObj = Objects.requireNonNull(value, "waitObj");
        return this;
    }

    /** {@code flags}: wait set flags (none defined; 0). */
    public long flags() {
        return flags;
    }

    /** Sets {@link #flags()} ({@code flags}); returns this. */
    public WaitAttr flags(long value) {
        this.flags = value;
        return this;
    }

    /** A copy of these attributes. */
    public WaitAttr copy() {
        WaitAttr c = new WaitAttr();
        c.waitObj = waitObj;
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
        WaitAttr other = (WaitAttr) o;
        return waitObj == other.waitObj && flags == other.flags;
    }

    @Override
    public int hashCode() {
        int h = 17;
        h = 31 * h + waitObj.ordinal();
        h = 31 * h + Long.hashCode(flags);
        return h;
    }

    /** In the style of {@code fi_tostr}: {@code fi_wait_attr:} and one indented line per field. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(64);
        String p = AttrFormat.TAB;
        sb.append("fi_wait_attr:\n");
        AttrFormat.line(sb, p, "wait_obj", waitObj.fiName());
        sb.append(p).append("flags: ").append(AttrFormat.hex(flags));
        return sb.toString();
    }
}
