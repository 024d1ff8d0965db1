package io.jofi.spi.util;

import io.jofi.Fi;

/**
 * What a receive completion reports of one arriving message, decoded once from the wire and
 * passed along as one object ({@code fi_msg(3)}, {@code fi_tagged(3)}, {@code fi_cq(3)}
 * "Completion fields"): whether it is tagged and its tag, its remote CQ data, its sender and
 * its length. A provider keeps one per connection or peer for the message being read and
 * sets it for each message ({@link #set}); {@link UnexpectedMessage} is one that waits for a
 * receive. Mutable and reused: nothing is allocated per message.
 */
public class ArrivingMessage {
    boolean tagged;
    long tag;
    boolean hasData;
    long data;
    long src = Fi.FI_ADDR_NOTAVAIL;
    byte[] sourceAddress;
    long length;

    /**
     * Sets every field for a new message.
     *
     * @param tagged        a tagged message ({@code fi_tsend}) or not ({@code fi_send})
     * @param tag           its tag (ignored when untagged: 0)
     * @param hasData       whether it carries remote CQ data ({@code FI_REMOTE_CQ_DATA})
     * @param data          the data (ignored without {@code hasData}: 0)
     * @param src           the sender's {@code fi_addr_t} in the endpoint's AV whatever the
     *                      endpoint's caps (it is matched against {@code FI_DIRECTED_RECV}
     *                      receives; {@link ReceiveCompletion} reports it only with
     *                      {@code FI_SOURCE}), or {@code Fi.FI_ADDR_NOTAVAIL} when the sender
     *                      is not in the AV or the endpoint has none (MSG)
     * @param sourceAddress the sender's raw address when it is not in the AV (R10: with
     *                      {@code FI_SOURCE_ERR} the completion becomes {@code EADDRNOTAVAIL}
     *                      carrying a copy of it), else null. Kept by reference, never changed.
     * @param length        its payload length in bytes
     * @return this
     */
    public ArrivingMessage set(boolean tagged, long tag, boolean hasData, long data, long src, byte[] sourceAddress,
                             long length) {
        this.tagged = tagged;
        this.tag = tagged ? tag : 0;
        this.hasData = hasData;
        this.data = hasData ? data : 0;
        this.src = src;
        this.sourceAddress = sourceAddress;
        this.length = length;
        return this;
    }

    /** Whether it is a tagged message. */
    public boolean tagged() {
        return tagged;
    }

    /** Its tag (0 when untagged). */
    public long tag() {
        return tag;
    }

    /** Whether it carries remote CQ data. */
    public boolean hasData() {
        return hasData;
    }

    /** Its remote CQ data (0 without). */
    public long data() {
        return data;
    }

    /** The sender's {@code fi_addr_t}, or {@code Fi.FI_ADDR_NOTAVAIL}. */
    public long src() {
        return src;
    }

    /** The sender's raw address when it is not in the AV, else null. */
    public byte[] sourceAddress() {
        return sourceAddress;
    }

    /** Its payload length in bytes. */
    public long length() {
        return length;
    }

    /** Copies {@code other}'s fields into this one. */
    void copy(ArrivingMessage other) {
        tagged = other.tagged;
        tag = other.tag;
        hasData = other.hasData;
        data = other.data;
        src = other.src;
        sourceAddress = other.sourceAddress;
        length = other.length;
    }

    void clearHeader() {
        tagged = false;
        tag = 0;
        hasData = false;
        data = 0;
        src = Fi.FI_ADDR_NOTAVAIL;
        sourceAddress = null;
        length = 0;
    }
}
