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

    // Covariant overrides so that chains keep the TaggedMsg type.
    @Override public TaggedMsg buffer(java.nio.ByteBuffer buf, MemoryRegion desc) { super.buffer(buf, desc); return this; }
    @Override public TaggedMsg iov(int i, java.nio.ByteBuffer buf, MemoryRegion desc) { super.iov(i, buf, desc); return this; }
    @Override public TaggedMsg iovCount(int count) { super.iovCount(count); return this; }
    @Override public TaggedMsg addr(long addr) { super.addr(addr); return this; }
    @Override public TaggedMsg context(Object context) { super.context(context); return this; }
    @Override public TaggedMsg data(long data) { super.data(data); return this; }
}
