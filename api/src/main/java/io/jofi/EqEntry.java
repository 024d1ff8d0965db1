package io.jofi;

/**
 * One event, reusable ({@code struct fi_eq_entry} / {@code fi_eq_cm_entry}). Which fields
 * are set depends on {@link #event()}:
 * <ul>
 * <li>{@code FI_CONNREQ}: {@code fid} the passive endpoint, {@code info} the connecting
 *     endpoint's info with {@code info().handle()} the {@link ConnReq}, {@code payload} the
 *     active side's connection data (R14);</li>
 * <li>{@code FI_CONNECTED}: {@code fid} the endpoint; on the active side {@code payload} is
 *     the acceptor's data, exactly {@code payloadLength()} bytes, never padded;</li>
 * <li>{@code FI_SHUTDOWN}: {@code fid} the endpoint, exactly once per connection;</li>
 * <li>{@code FI_MR_COMPLETE}/{@code FI_AV_COMPLETE}: {@code fid}, {@code context},
 *     {@code data} (AV: the number inserted);</li>
 * <li>an application's own code written with {@link EventQueue#write}: what was written.</li>
 * </ul>
 */
public class EqEntry {
    private int event;
    private Fid fid;
    private Object context;
    private long data;
    private Info info;
    private byte[] payload;
    private int payloadLength;

    public EqEntry() {
    }

    /** {@code Fi.FI_NOTIFY} ... {@code Fi.FI_JOIN_COMPLETE}, or an application's own code. */
    public int event() { return event; }
    public Fid fid() { return fid; }
    public Object context() { return context; }
    public long data() { return data; }
    /** {@code FI_CONNREQ}: the connecting endpoint's info; {@code info().handle()} is the {@link ConnReq}. */
    public Info info() { return info; }
    /** Connection data or written bytes; valid are {@code [0, payloadLength())}. */
    public byte[] payload() { return payload; }
    public int payloadLength() { return payloadLength; }

    public EqEntry event(int event) { this.event = event; return this; }
    public EqEntry fid(Fid fid) { this.fid = fid; return this; }
    public EqEntry context(Object context) { this.context = context; return this; }
    public EqEntry data(long data) { this.data = data; return this; }
    public EqEntry info(Info info) { this.info = info; return this; }
    /** Sets the payload and its length to the array's length ({@code null}: none). */
    public EqEntry payload(byte[] payload) {
        this.payload = payload;
        this.payloadLength = payload == null ? 0 : payload.length;
        return this;
    }
    public EqEntry payloadLength(int payloadLength) { this.payloadLength = payloadLength; return this; }

    /** Copies every field of {@code other} into this entry (the payload array by reference). */
    public EqEntry set(EqEntry other) {
        this.event = other.event;
        this.fid = other.fid;
        this.context = other.context;
        this.data = other.data;
        this.info = other.info;
        this.payload = other.payload;
        this.payloadLength = other.payloadLength;
        return this;
    }

    /** Clears every field. */
    public EqEntry clear() {
        event = 0; fid = null; context = null; data = 0; info = null; payload = null; payloadLength = 0;
        return this;
    }

    @Override
    public String toString() {
        return "EqEntry{event=" + event + ", fid=" + fid + ", context=" + context + ", data=" + data
                + ", payloadLength=" + payloadLength + '}';
    }
}
