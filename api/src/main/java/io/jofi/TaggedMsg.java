package io.jofi;

/** A reusable tagged message description ({@code struct fi_msg_tagged}). */
public class TaggedMsg extends Msg {
    private long tag;
    private long ignore;

    public TaggedMsg() {
    }

    public TaggedMsg(int maxIov) {
        super(maxIov);
    }

    public TaggedMsg tag(long tag) { this.tag = tag; return this; }
    /** Bits set here are ignored when matching a receive. */
    public TaggedMsg ignore(long ignore) { this.ignore = ignore; return this; }
    public long tag() { return tag; }
    public long ignore() { return ignore; }
}
