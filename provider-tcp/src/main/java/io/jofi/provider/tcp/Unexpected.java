package io.jofi.provider.tcp;

import java.nio.ByteBuffer;

/**
 * A message that arrived before a receive was posted for it, buffered (within the matcher's
 * limit, {@link TcpSettings}) until one is ({@code fi_msg(3)}, {@code fi_tagged(3)}
 * "unexpected messages").
 */
final class Unexpected {
    final ByteBuffer data;
    final boolean hasCqData;
    final long cqData;
    /**
     * The ack is still owed when a receive takes the message ({@code FI_MATCH_COMPLETE},
     * JOFI flag bit 1); an ack for delivery was sent when the message was buffered.
     */
    final boolean ackWanted;
    /** The sender's fi_addr ({@code Fi.FI_ADDR_NOTAVAIL} on MSG endpoints). */
    final long src;
    /** The connection the message came on (acks it when a receive takes it). */
    final RxMatcher.Source origin;
    /** Whether it is a tagged message (op 1, or op 0 with flag bit 7), and its tag. */
    final boolean tagged;
    final long tag;
    /** Reserved by {@code FI_PEEK|FI_CLAIM}: the claiming context, or null. */
    Object claimedBy;
    /** The ack sequence number of the connection ({@link AckSequencer}) when {@link #ackWanted}. */
    long ackSeq = -1;

    Unexpected(ByteBuffer data, boolean hasCqData, long cqData, boolean ackWanted) {
        this(data, hasCqData, cqData, ackWanted, io.jofi.Fi.FI_ADDR_NOTAVAIL, null, false, 0);
    }

    Unexpected(ByteBuffer data, boolean hasCqData, long cqData, boolean ackWanted, long src, RxMatcher.Source origin,
               boolean tagged, long tag) {
        this.data = data;
        this.hasCqData = hasCqData;
        this.cqData = cqData;
        this.ackWanted = ackWanted;
        this.src = src;
        this.origin = origin;
        this.tagged = tagged;
        this.tag = tag;
    }
}
