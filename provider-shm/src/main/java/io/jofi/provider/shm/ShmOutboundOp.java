package io.jofi.provider.shm;

import java.nio.ByteBuffer;

/**
 * One outgoing operation of an endpoint, pooled (no allocation per operation in steady
 * state): a message, an RMA/atomic request, or a reply this side owes a peer (ACK, READ_RESP,
 * ATOMIC_RESP, NOTIFY). Its payload is a list of up to {@link #MAX_PARTS} absolute ranges of
 * buffers. It waits in its peer's queue until every fragment is in the peer's ring, then —
 * when it expects an answer — in the {@link ShmOperationTable} under its {@link #token}.
 */
final class ShmOutboundOp {
    static final int MAX_PARTS = 4;

    /** Index in the endpoint's operation table (the low bits of the token). */
    final int index;
    /** Bumped on every reuse, so that a late answer to a former use is not taken for this one. */
    int generation;
    /** Whether it is taken from its {@link ShmOperationTable} (false while it is on the free list). */
    boolean inUse;

    int kind;
    int wireFlags;
    int status;
    Peer peer;
    Object context;
    /** CQ flags of its completion. */
    long cqFlags;
    /** Whether it has a completion room reserved (it reports success or error). */
    boolean reports;
    /** Whether a success is written to the CQ (FI_COMPLETION / not selective). */
    boolean complete;
    /** Whether it waits for an answer after its last fragment. */
    boolean awaitsAnswer;
    /** Whether it is counted in its peer's {@link Peer#outstanding}. */
    boolean counted;
    /**
     * FI_TRANSMIT_COMPLETE: after its last record is published it completes only once a life
     * check of the peer made after the publish found it alive (counted in {@link Peer#unconfirmed}).
     */
    boolean awaitsAlive;
    /**
     * FI_TRANSMIT_COMPLETE: where its last record ends in the peer's ring
     * ({@link RingLink#lastClaimEnd}); the peer took the message once its consumed head reaches it.
     */
    long recordEnd;
    /** Which counter a completion counts: 0 none, else Fi.FI_SEND / FI_READ / FI_WRITE. */
    long counter;
    long token;
    long a;
    long b;
    long c;
    long d;
    long e;
    /** Payload parts: buffer, absolute start, length. */
    final ByteBuffer[] parts = new ByteBuffer[MAX_PARTS];
    final int[] starts = new int[MAX_PARTS];
    final int[] lengths = new int[MAX_PARTS];
    int partCount;
    long length;
    /** Bytes of the payload already in the peer's ring. */
    long sent;
    /** Fetch results / read destinations: the local buffers the answer is placed in. */
    final ByteBuffer[] dst = new ByteBuffer[MAX_PARTS];
    final int[] dstStarts = new int[MAX_PARTS];
    final int[] dstLengths = new int[MAX_PARTS];
    int dstCount;
    /** Bytes of a read answer placed so far. */
    long received;
    /** The copy of an injected payload (allocated once per descriptor, on first inject). */
    ByteBuffer injectCopy;

    ShmOutboundOp(int index) {
        this.index = index;
    }

    void part(ByteBuffer buf, int start, int len) {
        parts[partCount] = buf;
        starts[partCount] = start;
        lengths[partCount] = len;
        partCount++;
        length += len;
    }

    /**
     * Makes the payload its own: copies the parts into {@link #injectCopy} and points the
     * single part there (an inject still queued when its post returns; fragments already sent
     * keep their offsets, since {@link #sent} counts into the same payload).
     */
    void keepPayload() {
        if (injectCopy == null) {
            injectCopy = ByteBuffer.allocateDirect(ShmEndpoint.INJECT_SIZE);
        }
        int n = (int) length;
        copyPayload(0, injectCopy, 0, n);
        for (int i = 0; i < MAX_PARTS; i++) {
            parts[i] = null;
        }
        partCount = 0;
        length = 0;
        part(injectCopy, 0, n);
    }

    void dest(ByteBuffer buf, int start, int len) {
        dst[dstCount] = buf;
        dstStarts[dstCount] = start;
        dstLengths[dstCount] = len;
        dstCount++;
    }

    /** Copies {@code n} payload bytes from payload offset {@code from} to {@code out} at {@code at}. */
    void copyPayload(long from, ByteBuffer out, int at, int n) {
        long skip = from;
        int done = 0;
        for (int i = 0; i < partCount && done < n; i++) {
            int len = lengths[i];
            if (skip >= len) {
                skip -= len;
                continue;
            }
            int take = (int) Math.min(len - skip, n - done);
            out.put(at + done, parts[i], starts[i] + (int) skip, take);
            done += take;
            skip = 0;
        }
    }

    /** Places {@code n} answer bytes from {@code in[at..]} at answer offset {@code to} of the destinations. */
    void placeAnswer(long to, ByteBuffer in, int at, int n) {
        long skip = to;
        int done = 0;
        for (int i = 0; i < dstCount && done < n; i++) {
            int len = dstLengths[i];
            if (skip >= len) {
                skip -= len;
                continue;
            }
            int take = (int) Math.min(len - skip, n - done);
            dst[i].put(dstStarts[i] + (int) skip, in, at + done, take);
            done += take;
            skip = 0;
        }
    }

    /** Capacity of the destinations. */
    long destLength() {
        long n = 0;
        for (int i = 0; i < dstCount; i++) {
            n += dstLengths[i];
        }
        return n;
    }

    void reset() {
        generation++;
        kind = 0;
        wireFlags = 0;
        status = 0;
        peer = null;
        context = null;
        cqFlags = 0;
        reports = false;
        complete = false;
        awaitsAnswer = false;
        counted = false;
        awaitsAlive = false;
        recordEnd = 0;
        counter = 0;
        token = 0;
        a = b = c = d = e = 0;
        for (int i = 0; i < MAX_PARTS; i++) {
            parts[i] = null;
            dst[i] = null;
        }
        partCount = 0;
        dstCount = 0;
        length = 0;
        sent = 0;
        received = 0;
    }
}
