package io.jofi;

import java.util.Objects;

/**
 * Counter attributes: libfabric's {@code struct fi_cntr_attr}, the argument of
 * {@code Domain.openCounter} ({@code fi_cntr_open}, see fi_cntr(3)). Mutable, with fluent setters.
 */
public class CounterAttr {
    private int events;
    private WaitObj waitObj = WaitObj.NONE;
    private WaitSet waitSet;
    private long flags;

    /**
     * Creates attributes with every number 0, every enum at its default and every reference null.
     */
    public CounterAttr() {
    }

    /**
     * {@code events}: what the counter counts: 0 = {@code FI_CNTR_EVENTS_COMP} (completed
     * operations).
     */
    public int events() {
        return events;
    }

    /** Sets {@link #events()} ({@code events}); returns this. */
    public CounterAttr events(int value) {
        this.events = value;
        return this;
    }

    /** {@code wait_obj}: the wait object for {@code await}; {@link WaitObj#NONE} by default. */
    public WaitObj waitObj() {
        return waitObj;
    }

    /** Sets {@link #waitObj()} ({@code wait_obj}), never null; returns this. */
    public CounterAttr waitObj(WaitObj value) {
        this.waitObj = Objects.requireNonNull(value, "waitObj");
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
    public CounterAttr waitSet(WaitSet value) {
        this.waitSet = value;
        return this;
    }

    /** {@code flags}: counter flags (none defined; 0). */
    public long flags() {
        return flags;
    }

    /** Sets {@link #flags()} ({@code flags}); returns this. */
    public CounterAttr flags(long value) {
        this.flags = value;
        return this;
    }

    /** A copy of these attributes (the {@code waitSet} reference is shared). */
    public CounterAttr copy() {
        CounterAttr c = new CounterAttr();
        c.events = events;
        c.waitObj = waitObj;
        c.waitSet = waitSet;
        c.flags = flags;
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
        CounterAttr other = (CounterAttr) o;
        return events == other.events && waitObj == other.waitObj && waitSet == other.waitSet
                && flags == other.flags;
    }

    @Override
    public int hashCode() {
        int h = 17;
        h = 31 * h + events;
        h = 31 * h + waitObj.ordinal();
        h = 31 * h + System.identityHashCode(waitSet);
        h = 31 * h + Long.hashCode(flags);
        return h;
    }

    /** The attributes in the style of {@code fi_tostr(FI_TYPE_CNTR_ATTR)}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(128);
        String p = AttrFormat.TAB;
        sb.append("fi_cntr_attr:\n");
        AttrFormat.line(sb, p, "events", events == 0 ? "FI_CNTR_EVENTS_COMP"
                : events == 1 ? "FI_CNTR_EVENTS_BYTES" : "Unknown (" + events + ")");
        AttrFormat.line(sb, p, "wait_obj", waitObj.fiName());
        AttrFormat.line(sb, p, "wait_set", AttrFormat.ref(waitSet));
        sb.append(p).append("flags: ").append(AttrFormat.hex(flags));
        return sb.toString();
    }
}
