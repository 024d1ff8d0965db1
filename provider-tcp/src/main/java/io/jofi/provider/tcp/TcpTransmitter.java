package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.wire.TcpWireDescriptor.BASE_HEADER_LENGTH;
import static io.jofi.provider.tcp.wire.TcpWireDescriptor.ID_OFFSET;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.provider.tcp.wire.MessageHeader;
import io.jofi.spi.util.UtilCounter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;

/**
 * A tcp connection's transmit side: the queue of frames to write (pooled
 * {@link TcpTransmitOp}s, each written with one gathering write, resumed after a partial
 * write), the acks this side owes (written between frames, in arrival order:
 * {@link AckSequencer}), the operations waiting for the peer's ack or response, and their
 * completions. Guarded by the connection's lock.
 */
final class TcpTransmitter {
    /** What the transmitter asks of its connection (which passes the read side's part on). */
    interface Link {
        /** 0 when a transmit may be posted now (the endpoint's and the connection's state); else its negative errno. */
        int transmitState();

        /** Writes what is queued, as far as the socket takes it. */
        void flush();

        /** Write interest on (the socket is full) or off (nothing left to write). */
        void wantWrite(boolean on);

        /** Why the connection ended: the provErrno of the error completions (0 for a plain end). */
        int endProvErrno();

        /** Why the connection ended: the errData of the error completions, or null. */
        byte[] endReason();

        /** Publishes the receive completions a read pass staged, before a transmit completion is written. */
        void flushReceived();

        /** A frame left the transmit queue: reading blocked for want of transmit room goes on. */
        void transmitRoomFreed();
    }

    private final Link link;
    private final DataPathBindings bound;
    private final TcpConnectionCounters counters;
    /** Encodes the acks; big-endian (JOFI declares big-endian, docs/TCP-WIRE.md "Byte order"). */
    private final MessageHeader header = new MessageHeader(ByteOrder.BIG_ENDIAN);
    /** Operations the application posted that have not completed (bounded by queueSize). */
    private int outstanding;
    private final int queueSize;

    private final TcpTransmitOp[] free;
    private int freeCount;
    /** Frames to write, in order: the application's operations and the responses to the peer's requests. */
    private final OpRing<TcpTransmitOp> queue;
    /** Written, waiting for the peer's ack (in order: acks name no message). */
    private final OpRing<TcpTransmitOp> ackWait;
    /** RMA reads and atomics written, waiting for their responses (in request order). */
    private final OpRing<TcpTransmitOp> readWait;
    private final OpRing<TcpTransmitOp> atomicWait;

    /** Acks ready to be written. */
    private int pendingAcks;
    /** Acks leave in the order their messages arrived (tagged matching reorders receives). */
    private final AckSequencer acks = new AckSequencer();
    private boolean ackInFlight;
    private final ByteBuffer ackFrame = ByteBuffer.allocateDirect(BASE_HEADER_LENGTH).order(ByteOrder.BIG_ENDIAN);
    private int headerId;
    /** Bytes written to the socket (with the receiver's: the progress the progress timeout watches). */
    private long sent;

    TcpTransmitter(Link link, DataPathBindings bound, TcpConnectionCounters counters, int queueSize) {
        this.link = link;
        this.bound = bound;
        this.counters = counters;
        this.queueSize = queueSize;
        this.free = new TcpTransmitOp[2 * queueSize];
        // room for queueSize operations of the application plus queueSize responses to the peer
        this.queue = new OpRing<>(2 * queueSize + 1);
        this.ackWait = new OpRing<>(queueSize + 1);
        this.readWait = new OpRing<>(queueSize + 1);
        this.atomicWait = new OpRing<>(queueSize + 1);
    }

    // =================================================================== posting

    /**
     * Admits a transmit post: the endpoint's and the connection's state, the CQ, the queue's
     * room; then, when it reports a completion, a slot reserved on the transmit CQ. 0 or the
     * negative errno.
     */
    int admit(boolean reports) {
        int rc = check(reports);
        if (rc != 0 || !reports) {
            return rc;
        }
        return bound.txCq().reserve();
    }

    /** The checks of {@link #admit} without the reservation; 0 or the negative errno. */
    int check(boolean reports) {
        int rc = link.transmitState();
        if (rc != 0) {
            return rc;
        }
        if (reports && bound.txCq() == null) {
            return -Errno.ENOCQ;
        }
        if (outstanding >= queueSize) {
            return -Errno.EAGAIN;
        }
        return 0;
    }

    /** A pooled transmit set up for {@code kind}; the completion flag comes from {@code flags}. */
    TcpTransmitOp start(int kind, Object context, boolean reports, long flags, long cqFlags, long length) {
        TcpTransmitOp op = take();
        op.kind = kind;
        op.context = context;
        op.reports = reports;
        op.complete = (flags & Fi.FI_COMPLETION) != 0;
        op.cqFlags = cqFlags;
        op.length = length;
        return op;
    }

    /** Queues an encoded frame and writes what the socket takes; 0. */
    int queue(TcpTransmitOp op) {
        op.first = 0;
        if (op.kind != TcpTransmitOp.RESPONSE) {
            outstanding++;
        }
        queue.offer(op);
        link.flush();
        return 0;
    }

    /** Bytes written to the socket so far (the progress the progress timeout watches). */
    long bytesSent() {
        return sent;
    }

    /** Whether a response to the peer finds no room now (reading blocks until it has some). */
    boolean isFull() {
        return queue.isFull();
    }

    TcpTransmitOp take() {
        if (freeCount > 0) {
            TcpTransmitOp op = free[--freeCount];
            free[freeCount] = null;
            return op;
        }
        return new TcpTransmitOp();
    }

    void give(TcpTransmitOp op) {
        op.reset();
        if (freeCount < free.length) {
            free[freeCount++] = op;
        }
    }

    // =================================================================== writing

    /** Writes queued frames, acks between frames, until the queue is empty or the socket full. */
    void writeFrames(SocketChannel ch) throws IOException {
        while (true) {
            TcpTransmitOp op = queue.peek();
            if (ackInFlight || (pendingAcks > 0 && (op == null || !op.started))) {
                if (!ackInFlight) {
                    prepareAck();
                    pendingAcks--;
                    ackInFlight = true;
                }
                sent += ch.write(ackFrame);
                if (ackFrame.hasRemaining()) {
                    counters.partialWrites.increment();
                    link.wantWrite(true);
                    return;
                }
                ackInFlight = false;
                continue;
            }
            if (op == null) {
                link.wantWrite(false);
                return;
            }
            if (!op.started) {
                op.header.put(ID_OFFSET, (byte) headerId++);
                op.started = true;
            }
            if (op.count - op.first == 1) {
                sent += ch.write(op.gather[op.first]); // one buffer: a plain write, not the gathering path
            } else {
                sent += ch.write(op.gather, op.first, op.count - op.first);
            }
            if (!op.advance()) {
                counters.partialWrites.increment();
                link.wantWrite(true);
                return;
            }
            queue.poll();
            if (op.ackWanted) {
                ackWait.offer(op);
            } else if (op.kind == TcpTransmitOp.READ) {
                readWait.offer(op);
            } else if (op.kind == TcpTransmitOp.ATOMIC || op.kind == TcpTransmitOp.ATOMIC_FETCH) {
                atomicWait.offer(op);
            } else {
                complete(op);
            }
            link.transmitRoomFreed();
        }
    }

    private void prepareAck() {
        ByteBuffer a = ackFrame;
        a.clear();
        header.ack().id(headerId++ & 0xFF).encode(a);
        a.flip();
    }

    // =================================================================== acks this side owes

    /** A place in the ack order for a message that asks for one, or -1 when far more are unacked than any queue allows. */
    long assignAck() {
        return acks.assign();
    }

    /** The ack of message {@code seq} may go: released with every earlier one that may (arrival order). */
    void ackReady(long seq) {
        acks.ready(seq);
        int n = acks.drain();
        if (n > 0) {
            pendingAcks += n;
            link.flush();
        }
    }

    /** Forgets the acks owed (the connection ended). */
    void resetAcks() {
        pendingAcks = 0;
        acks.reset();
    }

    // =================================================================== what the peer answers

    /** The oldest written operation waiting for an ack, or null (an ack nobody asked for). */
    TcpTransmitOp acked() {
        return ackWait.poll();
    }

    /** The oldest RMA read waiting for its response, or null. */
    TcpTransmitOp readAnswered() {
        return readWait.poll();
    }

    /** The oldest atomic waiting for its response, or null. */
    TcpTransmitOp atomicAnswered() {
        return atomicWait.poll();
    }

    // =================================================================== completions

    /** The operation is done: its completion (or the CQ room given back) and its counter. */
    void complete(TcpTransmitOp op) {
        if (op.kind != TcpTransmitOp.RESPONSE) {
            outstanding--;
        }
        if (op.reports) {
            if (op.complete) {
                link.flushReceived(); // an ack read in a read pass: after the receives staged before it
                bound.txCq().complete(op.context, op.cqFlags, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            } else {
                bound.txCq().unreserve();
            }
        }
        UtilCounter c = bound.counterOf(op.kind);
        if (c != null) {
            c.increment();
        }
        give(op);
    }

    /** The operation failed with {@code err}, with the connection's end reason (R14). */
    void fail(TcpTransmitOp op, int err) {
        if (op.kind != TcpTransmitOp.RESPONSE) {
            outstanding--;
        }
        if (op.reports) {
            byte[] why = link.endReason();
            link.flushReceived(); // a teardown in a read pass: after the receives staged before it
            bound.txCq().completeError(op.context, op.cqFlags, 0, null, 0, 0, 0, 0, err, link.endProvErrno(), why,
                    why == null ? 0 : why.length, Fi.FI_ADDR_NOTAVAIL);
        }
        UtilCounter c = bound.counterOf(op.kind);
        if (c != null) {
            c.incrementError();
        }
        give(op);
    }

    /** Fails every queued and waiting operation with {@code err}. */
    void failAll(int err) {
        TcpTransmitOp t;
        while ((t = queue.poll()) != null) {
            fail(t, err);
        }
        while ((t = ackWait.poll()) != null) {
            fail(t, err);
        }
        while ((t = readWait.poll()) != null) {
            fail(t, err);
        }
        while ((t = atomicWait.poll()) != null) {
            fail(t, err);
        }
    }

    /** Closing: everything pending goes without a completion, its CQ room given back. */
    void discard() {
        TcpTransmitOp t;
        while ((t = queue.poll()) != null) {
            if (t.reports) {
                bound.txCq().unreserve();
            }
        }
        while ((t = ackWait.poll()) != null) {
            if (t.reports) {
                bound.txCq().unreserve();
            }
        }
        while (readWait.poll() != null) {
            bound.txCq().unreserve();
        }
        while (atomicWait.poll() != null) {
            bound.txCq().unreserve();
        }
    }

    /** Whether anything waits for the peer or the socket (the progress timeout watches it). */
    boolean waiting() {
        return outstanding > 0 || pendingAcks > 0 || ackInFlight;
    }
}
