package io.jofi.rsa.channel;

import io.jofi.rsa.wire.MessageBuffer;

/**
 * One outgoing message in flight: its buffer (pooled), the peer it goes to and, for a call, the
 * pending call a failed send must fail. The send's completion context is the slot itself.
 */
final class SendSlot {
    final MessageBuffer message;
    long peer;
    PendingCall call;
    /** Set while the slot's buffer is registered for a rendezvous read: released on RENDEZVOUS_DONE. */
    boolean heldForRendezvous;

    SendSlot(int capacity) {
        this.message = new MessageBuffer(capacity);
    }

    void reset() {
        message.clear();
        peer = 0;
        call = null;
        heldForRendezvous = false;
    }
}
