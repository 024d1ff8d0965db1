package io.jofi.provider.rxm;

import io.jofi.spi.util.PostedReceive;
import io.jofi.spi.util.UnexpectedMessage;
import io.jofi.spi.util.UnexpectedPayload;
import java.nio.ByteBuffer;

/**
 * The storage of rxm's unexpected messages: a heap copy of the payload (the packet's bounce
 * buffer goes back to its connection at once, and a rendezvous payload is read into the copy
 * right away), placed into the receive that takes it. Nothing is owed to the sender then.
 */
final class RxmUnexpectedCopy implements UnexpectedPayload {
    static final RxmUnexpectedCopy INSTANCE = new RxmUnexpectedCopy();

    private RxmUnexpectedCopy() {
    }

    @Override
    public long copyTo(UnexpectedMessage message, PostedReceive into) {
        ByteBuffer copy = (ByteBuffer) message.handle();
        int n = (int) Math.min(message.length(), into.capacity());
        return into.place(0, copy, 0, n);
    }

    @Override
    public void discard(UnexpectedMessage message) {
        // a heap copy: the collector frees it
    }
}
