package io.jofi.provider.rxm;

import static io.jofi.provider.rxm.RxmWireDescriptor.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The 64-byte packet header of rxm as values, and its codec over a little-endian buffer
 * ({@link RxmWireDescriptor}, "Packet header"). One instance is reused for every packet:
 * reading and writing allocate nothing.
 */
public final class RxmPacketHeader {
    public int type;
    public int segSize;
    public long segNo;
    /** The receiver's index of the sender. */
    public long connId;
    public long msgId;
    public long ctrlData;
    public int rxIndex;
    public int op;
    public int opData;
    public int flags;
    /** The message's payload length. */
    public long size;
    public long data;
    public long tag;
    /** The control-header version read (written as {@link RxmWireDescriptor#CTRL_VERSION}). */
    public int ctrlVersion = CTRL_VERSION;
    /** The operation version read (written as {@link RxmWireDescriptor#OP_VERSION}). */
    public int opVersion = OP_VERSION;

    /** Clears every field to a fresh packet's values. */
    public RxmPacketHeader clear() {
        type = 0;
        segSize = 0;
        segNo = 0;
        connId = 0;
        msgId = 0;
        ctrlData = 0;
        rxIndex = 0;
        op = 0;
        opData = 0;
        flags = 0;
        size = 0;
        data = 0;
        tag = 0;
        ctrlVersion = CTRL_VERSION;
        opVersion = OP_VERSION;
        return this;
    }

    /** Whether {@link #data} is remote CQ data. */
    public boolean hasData() {
        return (flags & FLAG_REMOTE_CQ_DATA) != 0;
    }

    /** Whether the message is tagged. */
    public boolean tagged() {
        return op == OP_TAGGED;
    }

    /** Writes the header at {@code at} of {@code b} (absolute; {@code b} little-endian). */
    public void write(ByteBuffer b, int at) {
        checkOrder(b);
        b.put(at + CTRL_VERSION_OFFSET, (byte) CTRL_VERSION);
        b.put(at + TYPE_OFFSET, (byte) type);
        b.putShort(at + SEG_SIZE_OFFSET, (short) segSize);
        b.putInt(at + SEG_NO_OFFSET, (int) segNo);
        b.putLong(at + CONN_ID_OFFSET, connId);
        b.putLong(at + MSG_ID_OFFSET, msgId);
        b.putLong(at + CTRL_DATA_OFFSET, ctrlData);
        b.put(at + OP_VERSION_OFFSET, (byte) OP_VERSION);
        b.put(at + RX_INDEX_OFFSET, (byte) rxIndex);
        b.put(at + OP_OFFSET, (byte) op);
        b.put(at + OP_DATA_OFFSET, (byte) opData);
        b.putInt(at + FLAGS_OFFSET, flags);
        b.putLong(at + SIZE_OFFSET, size);
        b.putLong(at + DATA_OFFSET, data);
        b.putLong(at + TAG_OFFSET, tag);
    }

    /** Reads the header at {@code at} of {@code b} (absolute; {@code b} little-endian). */
    public RxmPacketHeader read(ByteBuffer b, int at) {
        checkOrder(b);
        ctrlVersion = b.get(at + CTRL_VERSION_OFFSET) & 0xFF;
        type = b.get(at + TYPE_OFFSET) & 0xFF;
        segSize = b.getShort(at + SEG_SIZE_OFFSET) & 0xFFFF;
        segNo = b.getInt(at + SEG_NO_OFFSET) & 0xFFFF_FFFFL;
        connId = b.getLong(at + CONN_ID_OFFSET);
        msgId = b.getLong(at + MSG_ID_OFFSET);
        ctrlData = b.getLong(at + CTRL_DATA_OFFSET);
        opVersion = b.get(at + OP_VERSION_OFFSET) & 0xFF;
        rxIndex = b.get(at + RX_INDEX_OFFSET) & 0xFF;
        op = b.get(at + OP_OFFSET) & 0xFF;
        opData = b.get(at + OP_DATA_OFFSET) & 0xFF;
        flags = b.getInt(at + FLAGS_OFFSET);
        size = b.getLong(at + SIZE_OFFSET);
        data = b.getLong(at + DATA_OFFSET);
        tag = b.getLong(at + TAG_OFFSET);
        return this;
    }

    /** Writes entry {@code i} of a rendezvous descriptor starting at {@code at}. */
    public static void writeRendezvousIov(ByteBuffer b, int at, int i, long addr, long len, long key) {
        checkOrder(b);
        int e = at + i * RNDV_IOV_LENGTH;
        b.putLong(e + RNDV_IOV_ADDR, addr);
        b.putLong(e + RNDV_IOV_LEN, len);
        b.putLong(e + RNDV_IOV_KEY, key);
    }

    /** Writes the entry count of a rendezvous descriptor starting at {@code at} (and zeroes its padding). */
    public static void writeRendezvousCount(ByteBuffer b, int at, int count) {
        b.put(at + RNDV_COUNT, (byte) count);
        for (int i = RNDV_COUNT + 1; i < RNDV_LENGTH; i++) {
            b.put(at + i, (byte) 0);
        }
    }

    /** The entry count of the rendezvous descriptor at {@code at}. */
    public static int rendezvousCount(ByteBuffer b, int at) {
        return b.get(at + RNDV_COUNT) & 0xFF;
    }

    /** {@code addr} of entry {@code i} of the rendezvous descriptor at {@code at}. */
    public static long rendezvousAddr(ByteBuffer b, int at, int i) {
        return b.getLong(at + i * RNDV_IOV_LENGTH + RNDV_IOV_ADDR);
    }

    /** {@code len} of entry {@code i} of the rendezvous descriptor at {@code at}. */
    public static long rendezvousLen(ByteBuffer b, int at, int i) {
        return b.getLong(at + i * RNDV_IOV_LENGTH + RNDV_IOV_LEN);
    }

    /** {@code key} of entry {@code i} of the rendezvous descriptor at {@code at}. */
    public static long rendezvousKey(ByteBuffer b, int at, int i) {
        return b.getLong(at + i * RNDV_IOV_LENGTH + RNDV_IOV_KEY);
    }

    private static void checkOrder(ByteBuffer b) {
        if (b.order() != ByteOrder.LITTLE_ENDIAN) {
            throw new IllegalArgumentException("rxm packets are little-endian; set the buffer's order");
        }
    }
}
