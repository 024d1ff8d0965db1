package io.jofi.provider.tcp;

import java.nio.ByteBuffer;

/**
 * A message that arrived before a receive was posted for it, buffered (within the
 * connection's limit, {@link TcpSettings}) until one is.
 */
final class Unexpected {
    final ByteBuffer data;
    final boolean hasCqData;
    final long cqData;
    /** The sender asked for an ack (flag bit 2): sent when a receive takes the message. */
    final boolean ackWanted;

    Unexpected(ByteBuffer data, boolean hasCqData, long cqData, boolean ackWanted) {
        this.data = data;
        this.hasCqData = hasCqData;
        this.cqData = cqData;
        this.ackWanted = ackWanted;
    }
}
