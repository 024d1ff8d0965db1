package io.jofi.provider.shm;

import java.nio.ByteBuffer;

/**
 * A message that arrived before a receive matched it: its bytes are copied into a heap
 * buffer of its length (bounded in total by the endpoint's unexpected-bytes setting) — or, for
 * a CMA message, only its descriptor is kept (the sender's pid and iovecs; the bytes are read
 * from the sender when a receive takes it, {@link #cma}) — and it
 * remembers what its sender asked for (an acknowledgement once matched) and whether
 * {@code FI_PEEK | FI_CLAIM} set it aside for a context.
 */
final class ShmUnexpectedMessage {
    final Peer sender;
    final boolean tagged;
    final long tag;
    final boolean hasData;
    final long data;
    final ByteBuffer bytes;
    final long token;
    final int wireFlags;
    /** Bytes arrived so far (fragments). */
    int arrived;
    /** Set by FI_PEEK | FI_CLAIM: only FI_CLAIM with this context takes it. */
    Object claimedBy;
    /** A receive waiting for the rest of the message's fragments. */
    ShmPostedReceive waiting;
    /** The {@link UnexpectedList} it is on (null when on none) and its links there: arrival order, tag chain. */
    UnexpectedList list;
    ShmUnexpectedMessage prev;
    ShmUnexpectedMessage next;
    ShmUnexpectedMessage bprev;
    ShmUnexpectedMessage bnext;
    /**
     * Bytes every buffered message counts against the unexpected-bytes budget on top of its
     * payload: about what the entry costs in the heap (this object, its buffer object and
     * array header). Without it a stream of 0-byte messages cost nothing and filled the heap.
     */
    static final int ENTRY_OVERHEAD = 256;
    /** Bytes a CMA descriptor counts against the unexpected-bytes limit (it bounds their number). */
    static final int CMA_FOOTPRINT = ENTRY_OVERHEAD;
    /** A CMA message: its bytes stay in the sender (pid, iovecs); {@link #bytes} is empty. */
    final boolean cma;
    final long length;
    int cmaPid;
    long[] cmaAddrs;
    long[] cmaLens;
    int cmaCount;

    ShmUnexpectedMessage(Peer sender, boolean tagged, long tag, boolean hasData, long data, int length, long token,
               int wireFlags) {
        this.sender = sender;
        this.tagged = tagged;
        this.tag = tag;
        this.hasData = hasData;
        this.data = data;
        this.bytes = ByteBuffer.allocate(length);
        this.token = token;
        this.wireFlags = wireFlags;
        this.cma = false;
        this.length = length;
    }

    /** A CMA message's descriptor (copies the iovecs). */
    ShmUnexpectedMessage(Peer sender, boolean tagged, long tag, boolean hasData, long data, long length, long token,
               int wireFlags, int pid, long[] addrs, long[] lens, int count) {
        this.sender = sender;
        this.tagged = tagged;
        this.tag = tag;
        this.hasData = hasData;
        this.data = data;
        this.bytes = ByteBuffer.allocate(0);
        this.token = token;
        this.wireFlags = wireFlags;
        this.cma = true;
        this.length = length;
        this.cmaPid = pid;
        this.cmaAddrs = java.util.Arrays.copyOf(addrs, count);
        this.cmaLens = java.util.Arrays.copyOf(lens, count);
        this.cmaCount = count;
    }

    /** The message's length (FI_PEEK reports it). */
    long length() {
        return length;
    }

    /** Bytes a message of {@code length} payload bytes counts against the budget (as {@link #footprint()}). */
    static long footprintOf(long length) {
        return length + ENTRY_OVERHEAD;
    }

    /** Bytes it counts against the endpoint's unexpected-bytes limit: payload plus {@link #ENTRY_OVERHEAD}. */
    long footprint() {
        return cma ? CMA_FOOTPRINT : bytes.capacity() + ENTRY_OVERHEAD;
    }

    boolean isWhole() {
        return cma || arrived == bytes.capacity();
    }
}
