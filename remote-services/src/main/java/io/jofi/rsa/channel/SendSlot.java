package io.jofi.rsa.channel;

import io.jofi.FabricException;
import io.jofi.MemoryRegion;
import io.jofi.rsa.wire.MessageBuffer;
import java.nio.ByteBuffer;
import java.util.function.IntFunction;

/**
 * One outgoing message in flight: its buffer (pooled), the peer it goes to and, for a call, the
 * id of the pending call a failed send must fail. The send's completion context is the slot itself.
 */
final class SendSlot {
    final MessageBuffer message;
    long peer;
    /** For a call: the id it waits under (0: none), which a failed send fails. */
    long callId;
    /** For a HELLO or PROOF: the link whose handshake a failed send must fail. */
    PeerLink greeting;
    /** Set while the slot's buffer waits for a rendezvous read: released on RENDEZVOUS_DONE. */
    boolean heldForRendezvous;
    /** The registration of the message buffer for remote reads, kept while the buffer is. */
    private MemoryRegion region;
    private ByteBuffer registered;

    SendSlot(int capacity, IntFunction<ByteBuffer> grower) {
        this.message = new MessageBuffer(capacity, grower);
    }

    /** The slot's buffer registered for remote reads (whole capacity), registering it on first use. */
    MemoryRegion region(io.jofi.Domain domain, long key) throws FabricException {
        ByteBuffer buf = message.buffer();
        if (registered != buf) {
            closeRegion();
            // the whole capacity, and this very buffer object: shm publishes a registration of
            // its shareable memory for direct reads only when it is the buffer allocateBuffer gave
            int limit = buf.limit();
            buf.limit(buf.capacity());
            try {
                region = domain.register(buf, io.jofi.Fi.FI_REMOTE_READ, 0, key, 0, null);
            } finally {
                buf.limit(limit);
            }
            registered = buf;
        }
        return region;
    }

    /** Closes the registration (the buffer is dropped, or the channel closes). */
    void closeRegion() throws FabricException {
        MemoryRegion r = region;
        region = null;
        registered = null;
        if (r != null) {
            r.close();
        }
    }

    void reset() {
        message.clear();
        peer = 0;
        callId = 0;
        greeting = null;
        heldForRendezvous = false;
    }
}
