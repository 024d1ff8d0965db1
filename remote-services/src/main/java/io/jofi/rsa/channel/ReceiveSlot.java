package io.jofi.rsa.channel;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** One posted receive buffer of the channel; the completion's context is the slot. */
final class ReceiveSlot {
    final ByteBuffer buffer;

    ReceiveSlot(int bytes) {
        this.buffer = ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }
}
