package io.jofi.spi.util.rxm;

import io.jofi.Endpoint;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One bounce buffer posted as a receive on a MSG connection: a packet header and up to the
 * eager limit of payload land here, and the buffer is posted again once the packet is handled.
 * It is the context of its MSG receive, so a completion names it.
 */
final class RxmReceiveBuffer {
    final RxmConnection connection;
    /** The MSG endpoint it is posted on (a replaced connection's buffers are not posted again). */
    final Endpoint postedOn;
    final ByteBuffer buffer;
    /**
     * Posted as a tagged receive that takes any tag: libfabric's tcp provider carries a tagged
     * eager message of rxm over tcp as a tcp tagged message (flags bit 7, the tag in the tcp
     * header) whose payload has no rxm header. Such a buffer holds the payload alone.
     */
    final boolean rawTagged;
    /** The MSG completion that filled it (length, and the tag, flags, data of a raw tagged message). */
    int length;
    long tag;
    long flags;
    long data;
    /** The next packet held back on its connection ({@link RxmConnection#heldHead}). */
    RxmReceiveBuffer nextHeld;

    RxmReceiveBuffer(RxmConnection connection, Endpoint postedOn, int eagerLimit, boolean rawTagged) {
        this.connection = connection;
        this.postedOn = postedOn;
        this.rawTagged = rawTagged;
        this.buffer = ByteBuffer.allocateDirect(RxmWireDescriptor.HEADER_LENGTH + eagerLimit)
                .order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Posts it (again) on its MSG endpoint: 0 or a negative errno. */
    int post() {
        buffer.clear();
        return rawTagged ? postedOn.trecv(buffer, null, 0, 0, -1L, this) : postedOn.recv(buffer, null, 0, this);
    }
}
