package io.jofi.rsa.channel;

import io.jofi.Domain;
import io.jofi.FabricException;
import io.jofi.MemoryRegion;
import io.jofi.rsa.wire.CallDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Messages longer than the inline limit (a 1 MiB {@code byte[]} argument or result): the
 * sender registers the encoded message for remote reads and sends a short announcement
 * (id, address, key, length); the receiver reads the message with {@code fi_read} into a buffer
 * of its own, handles it as if it had arrived inline, and answers RENDEZVOUS_DONE, on which the
 * sender closes the registration. A registration nobody reads is closed after twice the call
 * timeout.
 */
final class Rendezvous {
    private static final System.Logger LOG = System.getLogger(Rendezvous.class.getName());
    /** The largest message a peer may make this side allocate for a read. */
    private static final int MAX_MESSAGE = 256 << 20;

    private record Outgoing(SendSlot slot, long deadlineNanos) {
    }

    /** Read buffers kept for the next large message (each at most {@link #KEEP_READ} bytes). */
    private static final int KEEP_READ_BUFFERS = 8;
    private static final int KEEP_READ = 4 << 20;

    /** One RMA read in flight: the completion's context. */
    static final class Read {
        final ByteBuffer target;
        final long peer;
        final long id;
        final byte kind;
        final long callId;
        final long session;

        Read(ByteBuffer target, long peer, long id, byte kind, long callId, long session) {
            this.target = target;
            this.peer = peer;
            this.id = id;
            this.kind = kind;
            this.callId = callId;
            this.session = session;
        }
    }

    private final FabricChannel channel;
    private final Domain domain;
    private final ConcurrentHashMap<Long, Outgoing> outgoing = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final ConcurrentLinkedQueue<ByteBuffer> readBuffers = new ConcurrentLinkedQueue<>();

    Rendezvous(FabricChannel channel, Domain domain) {
        this.channel = channel;
        this.domain = domain;
    }

    /** Registers {@code slot}'s message (flipped) and announces it to {@code peer}; null or why not. */
    String send(SendSlot slot, long peer) {
        ByteBuffer message = slot.message.buffer();
        long id = ids.incrementAndGet();
        MemoryRegion region;
        try {
            region = slot.region(domain, id); // registered once per buffer, reused while the slot keeps it
        } catch (FabricException e) {
            channel.release(slot);
            return "cannot register a " + message.limit() + "-byte message for the peer to read: " + e.getMessage();
        }
        slot.heldForRendezvous = true;
        long deadline = System.nanoTime() + 2 * TimeUnit.MILLISECONDS.toNanos(channel.settings.timeoutMillis());
        outgoing.put(id, new Outgoing(slot, deadline));
        SendSlot announcement = channel.acquire();
        ByteBuffer a = announcement.message.buffer();
        for (int i = 0; i < CallDescriptor.HEADER; i += 8) {
            a.putLong(i, message.getLong(i));
        }
        a.put(CallDescriptor.FLAGS, (byte) CallDescriptor.FLAG_RENDEZVOUS);
        announcement.message.ensure(CallDescriptor.RENDEZVOUS_BODY)
                .putLong(id).putLong(region.address()).putLong(region.key()).putInt(message.limit());
        announcement.callId = slot.callId;
        String failed = channel.send(announcement, peer);
        if (failed != null) {
            onDone(id);
        }
        return failed;
    }

    /** An announcement arrived (progress thread): start the read on a worker. */
    void onAnnouncement(ByteBuffer msg) {
        byte kind = CallDescriptor.kind(msg);
        long callId = CallDescriptor.callId(msg);
        long session = CallDescriptor.session(msg);
        long peer = kind == CallDescriptor.CALL ? channel.exporter.peerOfSession(session) : channel.caller.peerOfCall(callId);
        if (peer < 0 || CallDescriptor.bodyLength(msg) != CallDescriptor.RENDEZVOUS_BODY) {
            channel.counters.droppedMessage();
            return;
        }
        int at = CallDescriptor.HEADER;
        long id = msg.getLong(at);
        long addr = msg.getLong(at + 8);
        long key = msg.getLong(at + 16);
        int length = msg.getInt(at + 24);
        if (length < CallDescriptor.HEADER || length > MAX_MESSAGE) {
            channel.counters.droppedMessage();
            return;
        }
        channel.execute(() -> {
            Read read = new Read(readBuffer(length), peer, id, kind, callId, session);
            String failed = channel.post(null, () -> channel.read(read.target, peer, addr, key, read));
            if (failed != null) {
                readFailed(read, failed);
            }
        });
    }

    /** The read completed (progress thread). */
    void onRead(Read read, int err, String reason) {
        if (err != 0) {
            readFailed(read, reason);
            return;
        }
        read.target.position(0); // limit: the message's length, as posted
        try {
            channel.onMessage(read.target); // decodes (copies) everything it keeps
        } finally {
            if (read.target.capacity() <= KEEP_READ && readBuffers.size() < KEEP_READ_BUFFERS) {
                readBuffers.offer(read.target);
            }
        }
        channel.execute(() -> {
            SendSlot slot = channel.acquire();
            CallDescriptor.header(slot.message.buffer(), CallDescriptor.RENDEZVOUS_DONE, 0, 0, read.id, 0, 0, 0, 0);
            String failed = channel.send(slot, read.peer);
            if (failed != null) {
                LOG.log(System.Logger.Level.DEBUG, "RENDEZVOUS_DONE not sent (the sender frees it by timeout): " + failed);
            }
        });
    }

    private void readFailed(Read read, String reason) {
        String why = "could not read a " + read.target.capacity() + "-byte message by RMA: " + reason;
        if (read.kind == CallDescriptor.CALL) {
            channel.counters.droppedMessage();
            LOG.log(System.Logger.Level.WARNING, why);
        } else {
            channel.caller.fail(read.callId, why, null);
        }
    }

    /** A buffer of at least {@code length} bytes, limited to {@code length}: a kept one, or a new power of two. */
    private ByteBuffer readBuffer(int length) {
        ByteBuffer kept = readBuffers.poll();
        if (kept == null || kept.capacity() < length) {
            int capacity = Integer.highestOneBit(Math.max(length - 1, 1)) << 1;
            kept = ByteBuffer.allocateDirect(capacity > 0 ? capacity : length).order(ByteOrder.LITTLE_ENDIAN);
        }
        kept.clear().limit(length);
        return kept;
    }

    /** The peer read message {@code id}: free it. */
    void onDone(long id) {
        Outgoing o = outgoing.remove(id);
        if (o != null) {
            free(o);
        }
    }

    void expire(long now) {
        for (Iterator<Map.Entry<Long, Outgoing>> it = outgoing.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Outgoing> e = it.next();
            if (now - e.getValue().deadlineNanos() >= 0 && outgoing.remove(e.getKey(), e.getValue())) {
                free(e.getValue());
            }
        }
    }

    void closeAll() {
        for (Long id : outgoing.keySet()) {
            onDone(id);
        }
    }

    private void free(Outgoing o) {
        channel.release(o.slot());
    }
}
