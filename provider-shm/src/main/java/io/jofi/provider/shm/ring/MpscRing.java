package io.jofi.provider.shm.ring;

import static io.jofi.provider.shm.ring.RegionDescriptor.HEAD_OFFSET;
import static io.jofi.provider.shm.ring.RegionDescriptor.SLEEPING_OFFSET;
import static io.jofi.provider.shm.ring.RegionDescriptor.STATE_FAILED;
import static io.jofi.provider.shm.ring.RegionDescriptor.STATE_OFFSET;
import static io.jofi.provider.shm.ring.RegionDescriptor.TAIL_OFFSET;
import static io.jofi.provider.shm.ring.RingDescriptor.ALIGNMENT;
import static io.jofi.provider.shm.ring.RingDescriptor.AUX_OFFSET;
import static io.jofi.provider.shm.ring.RingDescriptor.HEADER_LENGTH;
import static io.jofi.provider.shm.ring.RingDescriptor.SENDER_OFFSET;
import static io.jofi.provider.shm.ring.RingDescriptor.SENDER_UNKNOWN;
import static io.jofi.provider.shm.ring.RingDescriptor.TYPE_OFFSET;
import static io.jofi.provider.shm.ring.RingDescriptor.TYPE_PADDING;

import io.jofi.Errno;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * The lock-free multi-producer, single-consumer ring of a region (docs/SHM-LAYOUT.md "Ring protocol"): records
 * of {@link RingDescriptor} layout in the ring area, tail and head in the region header
 * ({@link RegionDescriptor}).
 *
 * <h2>Producers</h2> (any thread of any process that mapped the region)
 * <ol>
 * <li>{@link #claim}: reads head (acquire) and tail, checks the space against the head (a
 *     record is never written over unconsumed space), CASes the tail forward. The head it read
 *     last is kept and used while it shows room: the head only grows, so an older value shows
 *     less room than there is, never more; the shared head (a line the consumer writes after
 *     every batch, so a cache miss) is read again only when the kept one shows too little
 *     room. A claim that does
 *     not fit before the end of the ring also claims the rest of the ring and fills it with a
 *     padding record. Right after the CAS the producer writes type, sender, aux and the
 *     negative length (release): the space is marked as its own. Right after the CAS it also
 *     reads the consumer's sleeping flag: the CAS is a full barrier (a {@code lock cmpxchg} on
 *     x86), so that read is one side of the doorbell handshake at no extra cost.</li>
 * <li>the producer writes the payload into {@link #buffer()} at {@code index + HEADER_LENGTH};</li>
 * <li>{@link #publish}: stores the positive length last with release semantics, and no fence;
 *     {@code true} (the flag read at the claim, or read again now, was set) means "ring its
 *     doorbell".</li>
 * </ol>
 * No lock, no system call, no allocation. The CAS is retried a bounded number of times (a
 * hostile process flipping the tail cannot trap a producer).
 *
 * <h2>Consumer</h2> (the region's owner, one thread at a time)
 * {@link #read} keeps the head privately (the copy in the file is only published for
 * producers, never trusted back: a copy that differs from it is another process's write, a
 * corruption like the others below), reads each length word with acquire semantics and validates
 * tail, length, type and bounds before use: a violation declares the ring failed
 * ({@link #FAILED}, {@link RegionDescriptor#STATE_FAILED} in the header) — never an exception,
 * never an access outside the ring, never a loop beyond {@code limit} records plus the
 * paddings of one lap. Consumed bytes are zeroed before the head moves past them (release), so
 * the next lap finds zero length words.
 *
 * <h2>A producer that claims and dies</h2>
 * A record whose length word stays non-positive for longer than the stall timeout
 * ({@link #stallTimeoutNanos(long)}, default 1 s; timed from the second read that finds it
 * so, since the first is almost always a live producer between its claim and its publish,
 * which must not cost a read of the clock) is resolved by {@link SenderLiveness}: a
 * negative length names its sender, which is asked; a zero length (the producer stopped
 * between its CAS and its length store) ends where the next record starts (seen at two looks
 * that agree, or the end of the ring), and the sender word it may have stored, else
 * {@link RingDescriptor#SENDER_UNKNOWN}, is asked. Only a "dead" answer skips the space; a
 * live but slow producer is waited for (its later writes would otherwise land in reused
 * space). Reads keep returning (0 records) while they wait; they never block.
 */
public final class MpscRing {

    /** Result of {@link #read} and {@link #claim} when the ring is corrupt (declared failed). */
    public static final int FAILED = -Errno.EIO;
    /** Result of {@link #claim}: no room now (back-pressure: retry later). */
    public static final int FULL = -Errno.EAGAIN;

    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int MAX_CLAIM_ATTEMPTS = 1024;
    private static final byte[] ZEROS = new byte[4096];

    private final ByteBuffer region;
    private final ByteBuffer ring;
    private final int capacity;
    private final int mask;
    private final int maxPayload;

    // Consumer-only state (single consumer thread): the authoritative head and stall tracking.
    /** Ring bytes consumed, zeroed and published to producers ({@code HEAD_OFFSET}). */
    private long head;
    /** Ring bytes handed to the handler by {@link #take}; at or ahead of {@link #head} until {@link #releaseTaken}. */
    private long taken;
    private long stallPosition = -1;
    private long stallSince;
    /** Whether {@link #stallSince} holds the time of the stall's second sighting. */
    private boolean stallTimed;
    /** Where the record behind a stalled unmarked claim was seen to start at the previous look (0: not yet). */
    private int stallGap;
    private long stallTimeoutNanos = TimeUnit.SECONDS.toNanos(1);
    private SenderLiveness liveness = SenderLiveness.ALWAYS_ALIVE;
    private long abandoned;
    private volatile String failure;

    // Producer-side state of this process's mapping.
    /**
     * The head this producer last read and found valid (-1: none yet): claims check their
     * room against it and read the shared head only when it shows too little (see the class
     * comment). Volatile so that threads of this process that share the mapping never see a
     * torn value; a stale one is only conservative.
     */
    private volatile long knownHead = -1;
    /** Where the last successful {@link #claim} of this mapping ends in ring bytes ({@link #lastClaimEnd()}). */
    private long lastClaimEnd;
    /** The consumer's sleeping flag as the last successful {@link #claim} read it, right after its CAS. */
    private boolean sleeperAtClaim;

    /**
     * A ring over memory laid out as {@link RegionDescriptor}: the header counters at their
     * offsets in {@code region}, the ring at {@code ringOffset}. {@link ShmRegion} builds it;
     * tests and benchmarks may use a direct buffer.
     *
     * @param region     a direct buffer (atomic access needs aligned native memory)
     * @param ringOffset offset of the ring area, a multiple of {@link RegionDescriptor#PAD}
     * @param capacity   a power of two, at least {@link RegionDescriptor#MIN_RING_CAPACITY}
     * @throws IllegalArgumentException when the buffer is not direct or too small, or the
     *                                  offset or capacity is invalid
     */
    public MpscRing(ByteBuffer region, int ringOffset, int capacity) {
        if (!region.isDirect()) {
            throw new IllegalArgumentException("ring memory must be a direct buffer");
        }
        String problem = RegionDescriptor.checkSizes(capacity, 64, 0);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        if (ringOffset < RegionDescriptor.SLOT_STATES_OFFSET || ringOffset % RegionDescriptor.PAD != 0
                || (long) ringOffset + capacity > region.capacity()) {
            throw new IllegalArgumentException("ring at " + ringOffset + " of " + capacity
                    + " bytes does not fit a buffer of " + region.capacity() + " bytes");
        }
        this.region = region.duplicate().clear().order(ByteOrder.LITTLE_ENDIAN);
        this.ring = this.region.slice(ringOffset, capacity).order(ByteOrder.LITTLE_ENDIAN);
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.maxPayload = RingDescriptor.maxPayloadLength(capacity);
        this.head = (long) LONG.getVolatile(this.region, HEAD_OFFSET);
        this.taken = head;
    }

    /**
     * @return the ring area (little-endian; offsets as returned by {@link #claim}); one
     *         instance shared by every thread: use absolute get/put only, never its position
     */
    public ByteBuffer buffer() {
        return ring;
    }

    /** @return the ring capacity in bytes */
    public int capacity() {
        return capacity;
    }

    /** @return the largest payload {@link #claim} accepts: capacity / 8 - 16 */
    public int maxPayloadLength() {
        return maxPayload;
    }

    // ------------------------------------------------------------------ producers

    /**
     * Claims space for one record and marks it as this producer's (negative length, sender).
     *
     * @param type          the record type, positive
     * @param sender        the producer's index (reported to {@link SenderLiveness} if it stalls)
     * @param aux           a free word for the user (e.g. a bounce slot index)
     * @param payloadLength payload bytes, 0 .. {@link #maxPayloadLength()}
     * @return the record's offset in {@link #buffer()} (payload at + 16), or {@link #FULL} (no
     *         room: retry), {@link #FAILED} (the region's counters are corrupt),
     *         {@code -EINVAL} (type not positive), {@code -EMSGSIZE} (payload too long)
     */
    public int claim(int type, int sender, int aux, int payloadLength) {
        if (type <= TYPE_PADDING) {
            return -Errno.EINVAL;
        }
        if (payloadLength < 0 || payloadLength > maxPayload) {
            return -Errno.EMSGSIZE;
        }
        final int length = HEADER_LENGTH + payloadLength;
        final int aligned = RingDescriptor.alignedLength(length);
        for (int attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
            long tail = (long) LONG.getVolatile(region, TAIL_OFFSET);
            long headSeen = knownHead;
            // The kept head was read before this tail and the head only grows: tail >= it.
            long used = tail - headSeen;
            int index = (int) (tail & mask);
            int toEnd = capacity - index;
            int padding = aligned > toEnd ? toEnd : 0;
            int required = padding + aligned;
            if (headSeen < 0 || used < 0 || used > capacity || capacity - used < required) {
                // No kept head, or it shows too little room: read the shared one. Head first,
                // then tail: the tail only grows, so tail >= head in any snapshot.
                headSeen = (long) LONG.getAcquire(region, HEAD_OFFSET);
                tail = (long) LONG.getVolatile(region, TAIL_OFFSET);
                used = tail - headSeen;
                if (used < 0 || (tail & (ALIGNMENT - 1)) != 0) {
                    return FAILED; // only a corrupt region has a tail behind its head or misaligned
                }
                if (used > capacity) {
                    continue; // the head moved on between the two reads; look again
                }
                knownHead = headSeen;
                index = (int) (tail & mask);
                toEnd = capacity - index;
                padding = aligned > toEnd ? toEnd : 0;
                required = padding + aligned;
                if (capacity - used < required) {
                    return FULL;
                }
            } else if ((tail & (ALIGNMENT - 1)) != 0) {
                return FAILED;
            }
            if (LONG.compareAndSet(region, TAIL_OFFSET, tail, tail + required)) {
                // Dekker with prepareToSleep(): our tail CAS (a full barrier) before our flag load
                lastClaimEnd = tail + required;
                sleeperAtClaim = (int) INT.getVolatile(region, SLEEPING_OFFSET) != 0;
                int at = index;
                if (padding != 0) {
                    INT.set(ring, at + TYPE_OFFSET, TYPE_PADDING);
                    INT.setRelease(ring, at, padding);
                    at = 0;
                }
                INT.set(ring, at + TYPE_OFFSET, type);
                // release: a consumer that finds a sender word of an unmarked claim finds its
                // type too (the type tells it where that record starts: stalled())
                INT.setRelease(ring, at + SENDER_OFFSET, sender);
                INT.setRelease(ring, at + AUX_OFFSET, aux);
                INT.setRelease(ring, at, -length);
                return at;
            }
        }
        return FULL;
    }

    /**
     * Where the record of the last successful {@link #claim} made through this mapping ends,
     * in ring bytes since the ring was created (its padding included): once the consumer's head
     * ({@code HEAD_OFFSET}) reaches it, the consumer has taken that record. Meaningful to a
     * producer that claims through this mapping from one thread at a time (as an endpoint does
     * under its lock), right after its claim.
     */
    public long lastClaimEnd() {
        return lastClaimEnd;
    }

    /**
     * Publishes a claimed record: its length becomes positive, stored last with release
     * semantics, so the consumer sees the whole record once it sees the length. No fence: the
     * handshake with a consumer going to sleep was made by the claim's CAS and its read of the
     * sleeping flag ({@link #prepareToSleep}); the flag is read again here (plainly) for a
     * consumer that went to sleep while this producer was between its claim and this publish.
     *
     * @param index the offset {@link #claim} returned (the last claim of this mapping)
     * @return true when the consumer announced it is going to sleep: ring its {@link Doorbell}
     */
    public boolean publish(int index) {
        final int claimed = (int) INT.get(ring, index);
        INT.setRelease(ring, index, -claimed);
        return sleeperAtClaim || (int) INT.getAcquire(region, SLEEPING_OFFSET) != 0;
    }

    /**
     * Gives a claimed record up: it becomes padding, which the consumer skips.
     *
     * @param index the offset {@link #claim} returned
     */
    public void abort(int index) {
        final int claimed = (int) INT.get(ring, index);
        INT.set(ring, index + TYPE_OFFSET, TYPE_PADDING);
        INT.setRelease(ring, index, -claimed);
    }

    // ------------------------------------------------------------------ consumer

    /**
     * Delivers up to {@code limit} published records in ring order to {@code handler}, then
     * zeroes the consumed space and publishes the new head (release): {@link #take} and
     * {@link #releaseTaken} in one call. Single consumer.
     *
     * @return the number of records delivered (paddings not counted), or {@link #FAILED} when
     *         the ring is corrupt (also for every later call; {@link #failure()} says why), or
     *         {@code -EINVAL} when {@code limit < 1}
     */
    public int read(RecordHandler handler, int limit) {
        try {
            return take(handler, limit);
        } finally {
            releaseTaken(); // also when the handler throws: what it took before is consumed
        }
    }

    /**
     * Delivers up to {@code limit} published records in ring order to {@code handler}, after
     * those taken before, but leaves their space to {@link #releaseTaken}: a consumer that takes
     * several batches in one pass zeroes and publishes the head once, after it made what it took
     * known (its completions), so neither the zeroing nor the store producers read for their
     * room stands between a record and its completion. Until then producers see the space as
     * used. Single consumer; the handler's views of taken records stay valid until the release.
     *
     * @return as {@link #read}
     */
    public int take(RecordHandler handler, int limit) {
        if (failure != null) {
            return FAILED;
        }
        if (limit < 1) {
            return -Errno.EINVAL;
        }
        final long start = taken;
        final long tail = (long) LONG.getVolatile(region, TAIL_OFFSET);
        if (tail - start < 0 || tail - head > capacity) {
            return fail("tail outside [head, head + capacity]");
        }
        // this consumer is the head's only writer: another value in the file is another
        // process's write, which producers read for their room (a head moved on made them
        // fail us, one moved back a full ring for ever) — told here instead, where it is ours
        if ((long) LONG.getOpaque(region, HEAD_OFFSET) != head) {
            return fail("head in the region is not the consumer's");
        }
        if ((tail & (ALIGNMENT - 1)) != 0) {
            return fail("tail not a multiple of " + ALIGNMENT);
        }
        long position = start;
        int count = 0;
        int result = 0;
        try {
            while (count < limit && position < tail) {
                final int index = (int) (position & mask);
                final int toEnd = capacity - index;
                int length = (int) INT.getAcquire(ring, index);
                if (length <= 0) {
                    length = awaitPublish(index, length);
                }
                if (length <= 0) {
                    final int skip = stalled(position, tail, index, length);
                    if (skip < 0) {
                        result = skip;
                        break;
                    }
                    if (skip == 0) {
                        break;
                    }
                    position += skip;
                    continue;
                }
                if (length < ALIGNMENT || length > toEnd) {
                    result = fail("record length out of bounds");
                    break;
                }
                final int aligned = RingDescriptor.alignedLength(length);
                if (position + aligned > tail) {
                    result = fail("record beyond the tail");
                    break;
                }
                final int type = (int) INT.get(ring, index + TYPE_OFFSET);
                if (type == TYPE_PADDING) {
                    position += aligned;
                    continue;
                }
                if (type < 0 || length < HEADER_LENGTH) {
                    result = fail(type < 0 ? "negative record type" : "record shorter than its header");
                    break;
                }
                final int action = handler.onRecord(type, (int) INT.get(ring, index + SENDER_OFFSET),
                        (int) INT.get(ring, index + AUX_OFFSET), ring, index + HEADER_LENGTH, length - HEADER_LENGTH);
                if (action == RecordHandler.ABORT) {
                    break;
                }
                position += aligned;
                count++;
                if (action == RecordHandler.BREAK) {
                    break;
                }
                if (action != RecordHandler.CONTINUE) {
                    result = fail(action == RecordHandler.CORRUPT ? "record payload corrupt"
                            : "record handler answered an unknown action");
                    break;
                }
            }
        } finally {
            taken = position;
        }
        return result < 0 ? result : count;
    }

    /**
     * Zeroes the space of the records {@link #take} delivered since the last release and
     * publishes the new head (release): producers may claim it again. Single consumer; also
     * after a failed take (what it delivered before the failure is consumed).
     */
    public void releaseTaken() {
        if (taken != head) {
            release(head, taken);
        }
    }

    /**
     * A claimed record below the tail whose length is not positive yet is nearly always being
     * written by a live producer right now (a few stores and a copy between its claim and its
     * publish): look again up to {@link #PUBLISH_SPINS} times before treating it as a stall.
     * Taking it in this read saves the consumer a whole progress pass (and the caller's
     * completion-queue round) per such record; a producer that is really stalled costs this
     * read about a microsecond more.
     *
     * @return the length word as last read (positive: published)
     */
    private int awaitPublish(int index, int length) {
        for (int i = 0; i < PUBLISH_SPINS && length <= 0; i++) {
            Thread.onSpinWait();
            length = (int) INT.getAcquire(ring, index);
        }
        return length;
    }

    /** Looks at a claimed record's length word before a read gives up on it for now (about 17 ns each here). */
    private static final int PUBLISH_SPINS = 64;
    /**
     * Looks {@link #prepareToSleep} takes at a record claimed but not yet published at the head
     * before it sleeps anyway (a producer copies at most one inline record between claim and
     * publish: a microsecond or two; 1024 looks are about 17 µs here).
     */
    private static final int SLEEP_SPINS = 1024;

    /**
     * Decides what to do about a record whose length is not yet positive at {@code position}.
     *
     * @return 0 to wait, a positive number of bytes to skip (the claimer is dead), or FAILED
     */
    private int stalled(long position, long tail, int index, int length) {
        if (stallPosition != position) {
            // First sighting: nearly always a producer between its claim and its publish (the
            // record is there at the next look). No clock for it: a read of the clock costs as
            // much as a whole small record here, and a consumer that keeps up with a stream of
            // sends meets such a claim at every few records.
            stallPosition = position;
            stallTimed = false;
            stallGap = 0;
            return 0;
        }
        final long now = System.nanoTime();
        if (!stallTimed) {
            stallTimed = true;
            stallSince = now;
        }
        if (now - stallSince < stallTimeoutNanos) {
            return 0;
        }
        int gap;
        int sender;
        if (length < 0) {
            final int claimed = -length;
            if (claimed < HEADER_LENGTH || claimed > capacity - index) {
                return fail("claimed record length out of bounds");
            }
            gap = RingDescriptor.alignedLength(claimed);
            if (position + gap > tail) {
                return fail("claimed record beyond the tail");
            }
            sender = (int) INT.get(ring, index + SENDER_OFFSET);
        } else {
            // Length 0: the producer stopped between its CAS and its store of the length. It
            // may have stored type and sender (claim stores them first, the sender with release
            // after the type): a sender word there is its own, since the space was zero before
            // its CAS. Its extent is unknown: the next record starts at the first word written
            // behind it.
            gap = nextRecordBehind(position, tail, index);
            if (gap != stallGap) {
                // A producer writing the next record's header right now (its type or sender
                // seen before its length) would give a wrong start: only a start found at two
                // looks, a read call apart, counts.
                stallGap = gap;
                return 0;
            }
            if (gap == 0) {
                return 0;
            }
            sender = SENDER_UNKNOWN;
            if (capacity - index >= HEADER_LENGTH) { // less: a padding claim's stub, no header to read
                final int type = (int) INT.getAcquire(ring, index + TYPE_OFFSET);
                final int claimant = (int) INT.getAcquire(ring, index + SENDER_OFFSET);
                if (type > TYPE_PADDING && claimant != 0) {
                    sender = claimant;
                }
            }
        }
        if (liveness.isAlive(sender)) {
            stallSince = now; // ask again after another timeout
            return 0;
        }
        abandoned++;
        stallPosition = -1;
        stallGap = 0;
        return gap;
    }

    /**
     * Where the record behind an unmarked claim at {@code position} starts, relative to it:
     * the first non-zero word from {@link RingDescriptor#HEADER_LENGTH} on (the claim's
     * payload is written only after its length, so everything of it past its header is still
     * zero) is the next record's length or, while that record's producer is between its CAS and
     * its length store, its type (4 bytes in). When nothing is written up to the end of the
     * ring and the tail is past it, the claim (a padding claim, or one that ends there) covers
     * the rest of the ring. Never reads past the tail nor the end of the ring.
     *
     * @return the start of the next record relative to {@code position}, or 0 when none is
     *         visible yet
     */
    private int nextRecordBehind(long position, long tail, int index) {
        final int toEnd = capacity - index;
        final long end = Math.min(tail - position, toEnd);
        for (int offset = HEADER_LENGTH; offset < end; offset += Integer.BYTES) {
            if ((int) INT.getVolatile(ring, index + offset) != 0) {
                return offset & -ALIGNMENT;
            }
        }
        return tail - position >= toEnd ? toEnd : 0;
    }

    private void release(long from, long to) {
        long position = from;
        while (position < to) {
            final int index = (int) (position & mask);
            final int chunk = (int) Math.min(Math.min(to - position, capacity - index), ZEROS.length);
            ring.put(index, ZEROS, 0, chunk);
            position += chunk;
        }
        head = to;
        LONG.setRelease(region, HEAD_OFFSET, to);
    }

    private int fail(String why) {
        if (failure == null) {
            failure = why;
            INT.setVolatile(region, STATE_OFFSET, STATE_FAILED);
        }
        return FAILED;
    }

    /**
     * Consumer: announces that it is about to block on its doorbell. The caller blocks only if
     * this returns true, and calls {@link #awake()} once it runs again.
     *
     * The caller's wait must be bounded by about the stall timeout: a producer that died
     * after its claim never rings, and only a later {@link #read} resolves its claim. A record
     * the handler left unconsumed ({@link RecordHandler#ABORT}) keeps this answering false.
     *
     * A failed ring lets its consumer sleep: {@link #read} has told it already, and nothing
     * will ever be read from it again (answering "read instead" here made the consumer's
     * progress spin at 100 % CPU for ever; docs/SHM-LAYOUT.md "Bad input, faults, security"). Likewise a positive word at the
     * head counts only while the tail is ahead of the head: random bytes written at the head
     * of an empty ring are no record (they kept the consumer awake for ever too).
     *
     * @return false when a record is already published at the head (read instead of sleeping;
     *         the flag is cleared again)
     */
    public boolean prepareToSleep() {
        INT.setVolatile(region, SLEEPING_OFFSET, 1);
        // Dekker with claim(): our flag store before our tail load; a producer CASes the tail,
        // then loads the flag. Either it sees the flag (it rings after its publish), or we see
        // its claim here: then we wait for its publish instead of sleeping.
        VarHandle.fullFence();
        final long h = head;
        if (failure != null || (long) LONG.getVolatile(region, TAIL_OFFSET) == h) {
            return true; // nothing claimed: any later claim sees the flag
        }
        for (int spin = 0; spin < SLEEP_SPINS; spin++) {
            if ((int) INT.getVolatile(ring, (int) (h & mask)) > 0) {
                INT.setRelease(region, SLEEPING_OFFSET, 0);
                return false; // published: read instead
            }
            Thread.onSpinWait();
        }
        // A producer stopped between claim and publish (preempted, stopped or dead): sleep. It
        // reads the flag again at its publish and rings; the caller's wait is bounded anyway.
        return true;
    }

    /**
     * Whether a record is published at the head of a ring that has not failed: the consumer
     * has something to read. Changes nothing (unlike {@link #prepareToSleep()}), so any thread
     * that saw the consumer's latest head may ask, e.g. {@code fi_trywait} (R4). A tail that is
     * not ahead of the head means nothing was claimed, whatever the word at the head says; a
     * corrupt tail counts as "something to read", so that {@link #read} finds and reports it.
     */
    public boolean hasRecord() {
        final long h = head;
        return failure == null && (long) LONG.getVolatile(region, TAIL_OFFSET) != h
                && (int) INT.getVolatile(ring, (int) (h & mask)) > 0;
    }

    /** Consumer: clears the sleeping flag (producers stop ringing). */
    public void awake() {
        INT.setRelease(region, SLEEPING_OFFSET, 0);
    }

    /** @return whether the consumer announced it is sleeping (as producers see it) */
    public boolean isConsumerSleeping() {
        return (int) INT.getVolatile(region, SLEEPING_OFFSET) != 0;
    }

    /**
     * Consumer configuration: how long a claimed record may stay unpublished before its
     * producer's liveness is asked (then again after each further timeout).
     *
     * @param nanos at least 0
     */
    public void stallTimeoutNanos(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("stall timeout " + nanos + " < 0");
        }
        this.stallTimeoutNanos = nanos;
    }

    /** Consumer configuration: who decides whether a stalled producer is dead. */
    public void senderLiveness(SenderLiveness liveness) {
        if (liveness == null) {
            throw new IllegalArgumentException("liveness is null");
        }
        this.liveness = liveness;
    }

    /** @return the number of claims the consumer skipped because their producer was dead */
    public long abandonedClaims() {
        return abandoned;
    }

    /** @return the consumer's head: ring bytes consumed since creation */
    public long head() {
        return head;
    }

    /** @return the tail as the file says now (bytes claimed since creation) */
    public long tail() {
        return (long) LONG.getVolatile(region, TAIL_OFFSET);
    }

    /** @return whether the consumer declared this ring failed */
    public boolean isFailed() {
        return failure != null;
    }

    /** @return why the ring was declared failed, or null */
    public String failure() {
        return failure;
    }
}
