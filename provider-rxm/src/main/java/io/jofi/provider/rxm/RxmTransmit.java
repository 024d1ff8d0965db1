package io.jofi.provider.rxm;

import io.jofi.MemoryRegion;
import io.jofi.Msg;
import java.nio.ByteBuffer;

/**
 * One transmit in flight, pooled: the packet (header and, for an eager message, its payload
 * copied into a direct bounce buffer), the application's context and completion, and for a
 * rendezvous the registrations of the application's buffers until the receiver read them.
 * Its pool index is the packet's {@code msg_id}, so the receiver's answer finds it again.
 */
final class RxmTransmit {
    /**
     * What the transmit is, which decides what its completions mean. A segmented message's
     * segments but the last are SEGMENT (nobody hears of them); the last is the message's own
     * transmit, EAGER: its completion is the message's.
     */
    enum Kind { EAGER, RENDEZVOUS, CONTROL, RMA, ATOMIC, SEGMENT }

    final int index;
    final ByteBuffer packet;
    /** The MSG message the packet goes out in (flags such as FI_DELIVERY_COMPLETE need sendMsg). */
    final Msg msg = new Msg(1);
    /** The MSG RMA an RMA operation is passed through as. */
    final io.jofi.RmaMsg rma = new io.jofi.RmaMsg(RxmWireDescriptor.IOV_LIMIT);
    final MemoryRegion[] regions = new MemoryRegion[RxmWireDescriptor.IOV_LIMIT];
    /** A rendezvous' buffers (their [position, limit)), which a rendezvous by write writes from. */
    final ByteBuffer[] locals = new ByteBuffer[RxmWireDescriptor.IOV_LIMIT];
    /**
     * Rendezvous by write: a view of each local buffer that the writes' ranges are set on, made
     * once per buffer and kept while the same buffer comes again (a MSG write takes its range
     * at post, so one view serves every write of a buffer; a new one per write allocated, and
     * made the MSG provider's own view cache miss too). Like the tcp provider's view caches,
     * they keep the last buffer of each slot reachable until another one takes the slot.
     */
    private final ByteBuffer[] writeViews = new ByteBuffer[RxmWireDescriptor.IOV_LIMIT];
    private final ByteBuffer[] writeViewSources = new ByteBuffer[RxmWireDescriptor.IOV_LIMIT];
    int regionCount;

    Kind kind;
    RxmConnection connection;
    Object context;
    /** The operation's flags (FI_COMPLETION decides a success entry on a selective CQ). */
    long flags;
    /** The completion's flags (FI_SEND | FI_MSG or FI_TAGGED; FI_READ/FI_WRITE for RMA). */
    long completionFlags;
    /** Whether the application gets a completion (a one-buffer inject does not). */
    boolean reports;
    boolean sent;
    boolean peerDone;
    /** Rendezvous by write: MSG sends and writes not completed, and whether the write-done went out. */
    int outstanding;
    boolean doneSent;
    /** Rendezvous by write: the receiver's offered buffers ({@link RxmRendezvousWriter}). */
    final long[] offerAddr = new long[RxmWireDescriptor.IOV_LIMIT];
    final long[] offerLen = new long[RxmWireDescriptor.IOV_LIMIT];
    final long[] offerKey = new long[RxmWireDescriptor.IOV_LIMIT];
    int offerCount;
    /** Bytes of the offer whose writes are posted; {@code Long.MAX_VALUE} once all are. */
    long offerPosted;
    /** The first error of its writes, refused or completed with one (0: none): the operation fails with it once none is in flight. */
    int writeError;
    /** Waiting for room in the MSG queue for its next write ({@link #nextWriting}). */
    boolean writing;
    RxmTransmit nextWriting;
    boolean inUse;
    /** An RMA: read (else write). */
    boolean rmaRead;
    /** A control packet granting credits ({@link RxmCredits}): it may take the peer's last credit. */
    boolean grantsCredits;
    /** An atomic: its operation, operands, result buffer and target. */
    int atomicOp;
    /** An atomic: the errno its response brought (0: done), kept until its send completed too. */
    int atomicError;
    long operand;
    long compare;
    ByteBuffer result;
    /** A typed atomic: its element count (0: one FI_INT64 in {@link #operand}), datatype and kind of call. */
    int atomicCount;
    int atomicDatatype;
    long atomicKind;
    /** A typed atomic's operands and compare values, read once into the request packet, then let go. */
    ByteBuffer typedOperands;
    ByteBuffer typedCompares;
    long remoteAddr;
    long remoteKey;
    /** The flags of the MSG post (FI_TRANSMIT_COMPLETE, FI_REMOTE_CQ_DATA, ...). */
    long postFlags;
    RxmTransmit nextFree;
    /** The next transmit waiting for its connection. */
    RxmTransmit nextPending;

    /** The registration the packet lies in ({@link RxmPacketMemory}), or null: passed as the packet's desc. */
    MemoryRegion packetDesc;

    /** @param packet its packet buffer: a header and up to the eager limit of payload, little-endian */
    RxmTransmit(int index, ByteBuffer packet) {
        this.index = index;
        this.packet = packet;
    }

    /** Makes its packet the control header {@code h} alone (read-done, write-done, a credit grant), posted without flags. */
    void headerOnly(RxmPacketHeader h) {
        packet.clear();
        h.write(packet, 0);
        packet.limit(RxmWireDescriptor.HEADER_LENGTH);
        postFlags = 0;
    }

    void reset() {
        kind = null;
        connection = null;
        context = null;
        flags = 0;
        completionFlags = 0;
        reports = false;
        sent = false;
        peerDone = false;
        outstanding = 0;
        doneSent = false;
        offerCount = 0;
        offerPosted = 0;
        writeError = 0;
        writing = false;
        nextWriting = null;
        rmaRead = false;
        grantsCredits = false;
        atomicError = 0;
        result = null;
        postFlags = 0;
        nextPending = null;
        for (int i = 0; i < regionCount; i++) {
            regions[i] = null;
            locals[i] = null;
        }
        regionCount = 0;
    }

    /** A view of {@code locals[i]} for a write of {@code length} bytes at {@code offset} past its position. */
    ByteBuffer writeView(int i, int offset, int length) {
        ByteBuffer src = locals[i];
        ByteBuffer v = writeViews[i];
        if (writeViewSources[i] != src || v == null) {
            v = src.duplicate();
            writeViews[i] = v;
            writeViewSources[i] = src;
        }
        int from = src.position() + offset;
        v.limit(from + length).position(from);
        return v;
    }
}
