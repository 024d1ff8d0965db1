package io.jofi;

import java.util.Objects;

/**
 * Poll set attributes: libfabric's {@code struct fi_poll_attr}, the argument of
 * {@code Domain.openPollSet} ({@code fi_poll_open}, see fi_poll(3)). Mutable, with fluent setters.
 */
public class PollAttr {
    private long flags;

    /**
     * Creates attributes with every number 0, every enum at its default and every reference null.
     */
    public PollAttr() {
    }

    /** {@code flags}: poll set flags (none defined; 0). */
    public long flags() {
        return flags;
    }

    /** Sets {@link #flags()} ({@code flags}); returns this. */
    public PollAttr flags(long value) {
        this.flags = value;
        return this;
    }

    /** A copy of these attributes. */
    public PollAttr copy() {
        PollAttr c = new PollAttr();
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
        PollAttr other = (PollAttr) o;
        return flags == other.flags;
    }

    @Override
    public int hashCode() {
        int h = 17;
        h = 31 * h + Long.hashCode(flags);
        return h;
    }

    /** The attributes in the style of {@code fi_tostr}: {@code fi_poll_attr:} and its flags. */
    @Override
    public String toString() {
        return "fi_poll_attr:\n" + AttrFormat.TAB + "flags: " + AttrFormat.hex(flags);
    }
}
