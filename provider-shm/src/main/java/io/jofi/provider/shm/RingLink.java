package io.jofi.provider.shm;

import io.jofi.provider.shm.ring.BounceSlots;
import io.jofi.provider.shm.ring.Doorbell;
import io.jofi.provider.shm.ring.DoorbellRinger;
import io.jofi.provider.shm.ring.MpscRing;
import io.jofi.provider.shm.ring.RecordHandler;
import io.jofi.provider.shm.ring.RegionDescriptor;
import io.jofi.provider.shm.ring.RegionJanitor;
import io.jofi.provider.shm.ring.RegionSizes;
import io.jofi.provider.shm.ring.RingDescriptor;
import io.jofi.provider.shm.ring.SenderLiveness;
import io.jofi.provider.shm.ring.ShmRegion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An endpoint's view of one region (package {@code io.jofi.provider.shm.ring}): its own
 * (consumer: {@link #drain}, {@link #prepareToSleep}/{@link #awake} around a wait on the
 * domain's {@link Doorbell}) or a peer's
 * (producer: {@link #claim}, {@link #publish}, ringing the peer's doorbell only when
 * {@link MpscRing#publish} says the peer sleeps). Records carry the endpoint protocol
 * ({@link ShmRecordDescriptor}) as their payload; the ring record's sender word is the producer's pid, which
 * the consumer's {@link SenderLiveness} checks when a claim stalls.
 */
final class RingLink implements AutoCloseable {
    /**
     * What {@link #drain} calls for each record: the payload is {@code buf[at, at + length)};
     * {@code aux} is the producer's free word (0, or a bounce slot index + 1). It answers
     * false to leave the record in the ring (not consumed: delivered again by the next drain,
     * which ends this one) — the receiver's push-back when its unexpected budget is spent.
     */
    interface Handler {
        boolean onRecord(ByteBuffer buf, int at, int length, int aux);
    }

    /** {@link #claim}: the ring is full (retry later). */
    static final int FULL = -1;
    /** {@link #claim}: the peer's ring is corrupt (the peer is failed). */
    static final int BROKEN = -2;
    /** The one ring record type the endpoint protocol uses. */
    private static final int TYPE = 1;
    private static final int SENDER = (int) ProcessHandle.current().pid();
    /** The header's feature word (little-endian, as the whole header). */
    private static final java.lang.invoke.VarHandle FEATURES = java.lang.invoke.MethodHandles.byteBufferViewVarHandle(
            int[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    private final ShmRegion region;
    private final MpscRing ring;
    private final Doorbell doorbell;
    private final BounceSlots slots;
    /**
     * A view of the whole mapping for {@link #check} and the header words read on progress
     * passes (made once: {@code region.mapping()} makes a new view on every call, which the
     * stall check's reads every 50 ms allocated).
     */
    private final ByteBuffer whole;
    /**
     * {@link #check}'s scratch: a link is used under its endpoint's lock only (posts,
     * progress, close), one thread at a time, so it needs no thread-local one.
     */
    private final ByteBuffer probeScratch = MappingFaults.newScratch();
    private final DoorbellRinger ringer;
    private Handler handler;
    private final RecordHandler adapter = this::onRecord;

    private RingLink(ShmRegion region, Doorbell doorbell, DoorbellRinger ringer) {
        this.region = region;
        this.ring = region.ring();
        this.slots = region.bounceSlots();
        this.whole = region.mapping();
        this.doorbell = doorbell;
        this.ringer = ringer;
    }

    /**
     * Creates the endpoint's own region. Its doorbell path is a symbolic link to the domain's
     * doorbell socket {@code sharedBell} (one socket per domain, so that one progress thread
     * sleeps on all of its endpoints; producers connect through the link). A file of the same
     * name can only be a dead process's (the name holds the pid): the janitor removes it and
     * creation is tried once more.
     */
    static RingLink create(Path dir, String name, int ringSize, int slotSize, int slotCount, SenderLiveness liveness,
                           Path sharedBell) throws IOException {
        RegionSizes sizes;
        try {
            sizes = new RegionSizes(ringSize, slotSize, slotCount);
        } catch (IllegalArgumentException e) {
            throw new IOException("bad region sizes: " + e.getMessage(), e);
        }
        ShmRegion r;
        try {
            r = ShmRegion.create(dir, name, sizes);
        } catch (FileAlreadyExistsException e) {
            RegionJanitor.clean(dir);
            r = ShmRegion.create(dir, name, sizes);
        }
        try {
            Files.deleteIfExists(r.doorbellPath());
            Files.createSymbolicLink(r.doorbellPath(), sharedBell);
            r.ring().senderLiveness(liveness);
            return new RingLink(r, null, null);
        } catch (IOException | RuntimeException e) {
            r.close();
            throw e;
        }
    }

    /**
     * Maps a peer's region (refused for another user's, corrupt or dead owner's file) and
     * connects to its doorbell.
     */
    static RingLink map(Path dir, String name) throws IOException {
        ShmRegion r;
        try {
            r = ShmRegion.map(dir, name);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
        try {
            return new RingLink(r, null, DoorbellRinger.connect(r.doorbellPath()));
        } catch (IOException | RuntimeException e) {
            r.close();
            throw e;
        }
    }

    /** The ring buffer producers write records into (little-endian, absolute offsets). */
    ByteBuffer buffer() {
        return ring.buffer();
    }

    /** The largest payload one record carries. */
    int maxPayload() {
        return ring.maxPayloadLength();
    }

    /**
     * Claims a record with {@code length} payload bytes.
     *
     * @return where the payload goes in {@link #buffer()}, {@link #FULL} or {@link #BROKEN}
     */
    int claim(int length) {
        return claim(length, 0);
    }

    /** {@link #claim(int)} with the record's aux word (a bounce slot index + 1). */
    int claim(int length, int aux) {
        check(); // never CAS on a truncated file (fatal when interpreted, see MappingFaults)
        int index = ring.claim(TYPE, SENDER, aux, length);
        if (index >= 0) {
            return index + RingDescriptor.HEADER_LENGTH;
        }
        return index == MpscRing.FULL ? FULL : BROKEN;
    }

    /**
     * Where the record of this link's last successful claim ends in the peer's ring
     * ({@link MpscRing#lastClaimEnd}): the peer took it once {@link #consumedHead()} reaches it.
     */
    long lastClaimEnd() {
        return ring.lastClaimEnd();
    }

    /**
     * Publishes the record claimed at payload offset {@code at}; rings the doorbell if the
     * consumer sleeps.
     *
     * @return whether the doorbell was rung
     */
    boolean publish(int at) {
        boolean sleeping = ring.publish(at - RingDescriptor.HEADER_LENGTH);
        check(); // a fault of the record's stores comes out here, in the sender's call
        if (sleeping && ringer != null) {
            ringer.ring();
            return true;
        }
        return false;
    }

    /**
     * Probes the region's mapping ({@link MappingFaults#check}): throws the pending fault
     * (an {@link InternalError}) when its file was truncated.
     */
    void check() {
        MappingFaults.check(whole, probeScratch);
    }

    /**
     * Consumes up to {@code limit} records (own region).
     *
     * @return records consumed, or -1 when the ring is corrupt
     */
    int drain(Handler h, int limit) {
        handler = h;
        check();
        int n = ring.read(adapter, limit);
        check(); // faults of the reads (and slot releases) come out inside the progress pass
        return n < 0 ? -1 : n;
    }

    /**
     * Hands up to {@code limit} records (own region) to {@code h}, after those taken since the
     * last {@link #releaseTaken}, leaving their space taken ({@link MpscRing#take}); no probe:
     * the caller brackets its pass with {@link #check}.
     *
     * @return records taken, or -1 when the ring is corrupt
     */
    int take(Handler h, int limit) {
        handler = h;
        int n = ring.take(adapter, limit);
        return n < 0 ? -1 : n;
    }

    /** Zeroes what {@link #take} took and publishes the head: producers may claim the space again. */
    void releaseTaken() {
        ring.releaseTaken();
    }

    private int onRecord(int type, int sender, int aux, ByteBuffer buffer, int payloadOffset, int payloadLength) {
        if (type != TYPE) {
            return RecordHandler.CONTINUE; // not ours: skipped
        }
        return handler.onRecord(buffer, payloadOffset, payloadLength, aux) ? RecordHandler.CONTINUE : RecordHandler.ABORT;
    }

    // ------------------------------------------------------------------ bounce buffers

    /** The holder tag of this process in peers' bounce slots: its pid (positive). */
    static final int HOLDER = SENDER;

    /** Slots of the region (0 when it has none). */
    int slotCount() {
        return slots.slotCount();
    }

    int slotSize() {
        return slots.slotSize();
    }

    /** Producer: takes a free slot of the peer's region, or a negative value when none is free. */
    int acquireSlot() {
        if (slots.slotCount() == 0) {
            return -1;
        }
        check(); // the acquire is a CAS
        return slots.acquire(HOLDER);
    }

    /** The slot area (little-endian) and a slot's offset in it. */
    ByteBuffer slotBuffer() {
        return slots.buffer();
    }

    int slotOffset(int slot) {
        return slots.offset(slot);
    }

    /** Consumer: whether {@code slot} is a valid slot held by {@code holder} (both from shared memory). */
    boolean slotHeldBy(int slot, int holder) {
        return slots.isValid(slot) && slots.holder(slot) == holder;
    }

    /** Consumer: gives a slot back after copying out of it. */
    void releaseSlot(int slot) {
        slots.release(slot);
    }

    /** Consumer: frees every slot a dead producer held. */
    void releaseSlotsOf(int holder) {
        if (holder > 0) {
            slots.releaseAllHeldBy(holder);
        }
    }

    /**
     * Own region, about to sleep: sets the ring's sleeping flag and re-checks the ring.
     *
     * @return false when a record is there already (do not sleep; the flag is cleared)
     */
    boolean prepareToSleep() {
        return ring.prepareToSleep();
    }

    /** Whether a record waits in the ring (or it failed); changes nothing. */
    boolean hasRecord() {
        return ring.hasRecord();
    }

    /** Own region: clears the sleeping flag (producers stop ringing). */
    void awake() {
        ring.awake();
    }

    // ------------------------------------------------------------------ features

    /** Own region: tells peers that this endpoint reads CMA messages ({@link RegionDescriptor#FEATURE_CMA}). */
    void advertiseCma() {
        FEATURES.setRelease(whole, RegionDescriptor.FEATURES_OFFSET, RegionDescriptor.FEATURE_CMA);
    }

    /** Peer region: whether its owner says it reads CMA messages (a hint: the probe proves it). */
    boolean peerDoesCma() {
        return ((int) FEATURES.getAcquire(whole, RegionDescriptor.FEATURES_OFFSET)
                & RegionDescriptor.FEATURE_CMA) != 0;
    }

    /** Whether the region's file is now shorter than its mapping (truncated: touching it faults). */
    boolean truncated() {
        return MappingFaults.shorter(region.path(), whole.capacity());
    }

    private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteBufferViewVarHandle(
            long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    /** Peer region: the ring bytes its owner consumed so far (the head it stores after each batch; unvalidated). */
    long consumedHead() {
        return (long) LONGS.getAcquire(whole, RegionDescriptor.HEAD_OFFSET);
    }

    /** Peer region: the ring bytes claimed so far by all producers (the tail; unvalidated). */
    long claimedTail() {
        return (long) LONGS.getVolatile(whole, RegionDescriptor.TAIL_OFFSET);
    }

    /** Whether the region's owner process is stopped (SIGSTOP or a tracer: /proc state T or t). */
    boolean ownerStopped() {
        return region.isOwnerStopped();
    }

    /** Whether the region's owner still runs (pid and start time). */
    boolean ownerAlive() {
        return region.isOwnerAlive();
    }

    /**
     * Whether the peer behind this region is gone: its endpoint closed the region (state no
     * longer READY, read from shared memory), or — unless it is in this process — its process
     * died (pid and start time).
     */
    boolean peerGone(boolean sameProcess) {
        return region.state() != RegionDescriptor.STATE_READY || (!sameProcess && !region.isOwnerAlive());
    }

    /** Own: closes the doorbell and removes the region file. Peer: disconnects and forgets the mapping. */
    @Override
    public void close() {
        try {
            if (doorbell != null) {
                doorbell.close();
            }
            if (ringer != null) {
                ringer.close();
            }
        } catch (IOException e) {
            // closing: nothing left to tell
        }
        try {
            region.close();
        } catch (IOException e) {
            // the janitor of a later run removes what is left
        }
    }
}
