package io.jofi;

import java.nio.ByteBuffer;

/**
 * One completion, reusable and mutable: allocate an array of them once and read into it.
 * The queue's {@link CqFormat} says which fields are valid: {@code CONTEXT} has
 * {@code context}; {@code MSG} adds {@code flags} and {@code len}; {@code DATA} adds
 * {@code buf}, {@code bufOffset} and {@code data}; {@code TAGGED} adds {@code tag}.
 *
 * <p>{@link #buf()}/{@link #bufOffset()} of a multi-receive completion are the buffer object
 * the application posted (the same reference, never a slice) and the offset in it where
 * this message starts.
 */
public class CqEntry {
    private Object context;
    private long flags;
    private long len;
    private ByteBuffer buf;
    private int bufOffset;
    private long data;
    private long tag;

    public CqEntry() {
    }

    /** The context the application passed with the operation, by identity. */
    public Object context() { return context; }

    /** Completion flags ({@code Fi.FI_SEND}, {@code FI_RECV}, {@code FI_REMOTE_CQ_DATA}, ...). */
    public long flags() { return flags; }

    /** Bytes received (receives) or transferred. */
    public long len() { return len; }

    /** The receive buffer the data was placed in (multi-receive: the posted buffer). */
    public ByteBuffer buf() { return buf; }

    /** Where in {@link #buf()} the data starts (absolute index). */
    public int bufOffset() { return bufOffset; }

    /** Remote CQ data, valid with {@code FI_REMOTE_CQ_DATA}. */
    public long data() { return data; }

    /** The tag of a tagged message. */
    public long tag() { return tag; }

    /** Sets every field at once: for providers and the util layer, not applications. */
    public void set(Object context, long flags, long len, ByteBuffer buf, int bufOffset, long data, long tag) {
        this.context = context;
        this.flags = flags;
        this.len = len;
        this.buf = buf;
        this.bufOffset = bufOffset;
        this.data = data;
        this.tag = tag;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{context=" + context + ", flags=0x" + Long.toHexString(flags)
                + ", len=" + len + ", bufOffset=" + bufOffset + ", data=0x" + Long.toHexString(data)
                + ", tag=0x" + Long.toHexString(tag) + '}';
    }
}
