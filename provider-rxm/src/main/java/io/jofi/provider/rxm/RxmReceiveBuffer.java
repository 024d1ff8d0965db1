package io.jofi.provider.rxm;

import io.jofi.Endpoint;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.MemoryRegion;
import java.nio.ByteBuffer;

/**
 * One bounce buffer posted as a receive on a MSG connection: a packet header and up to the
 * eager limit of payload land here, and the buffer is posted again once the packet is handled.
 * It is the context of its MSG receive, so a completion names it.
 */
final class RxmReceiveBuffer {
    final RxmConnection connection;
    /** The MSG endpoint it is posted on (a replaced connection's buffers are not posted again). */
    final Endpoint postedOn;
    final ByteBuffer buffer;
    /**
     * Posted as a tagged receive that takes any tag: libfabric's tcp provider carries a tagged
     * eager message of rxm over tcp as a tcp tagged message (flags bit 7, the tag in the tcp
     * header) whose payload has no rxm header. Such a buffer holds the payload alone.
     */
    final boolean rawTagged;
    /** The MSG completion that filled it (length, and the tag, flags, data of a raw tagged message). */
    int length;
    long tag;
    long flags;
    long data;
    /** The next packet held back on its connection ({@link RxmConnection#heldHead}). */
    RxmReceiveBuffer nextHeld;

    /** The registration the buffer lies in, or null: passed as its desc. */
    private final MemoryRegion desc;
    /** The credit flow control of {@link #postedOn}. */
    private final RxmCredits credits;

    private RxmReceiveBuffer(RxmConnection connection, Endpoint postedOn, ByteBuffer buffer, MemoryRegion desc,
                             boolean rawTagged) {
        this.connection = connection;
        this.postedOn = postedOn;
        this.buffer = buffer;
        this.desc = desc;
        this.rawTagged = rawTagged;
        this.credits = connection.credits;
    }

    /**
     * Makes and posts the receive buffers of {@code c}'s new MSG endpoint {@code m}: {@code each}
     * (twice as many with {@code tagged}, the second half {@link #rawTagged}) in one block
     * ({@link RxmPacketMemory}, registered with {@code domain} when {@code register}), which
     * {@code c} keeps until {@link #release}. Each counts as a credit due to the peer in
     * {@code c}'s current {@link RxmConnection#credits}, which belong to {@code m}.
     *
     * @throws FabricException when the registration or a post fails (nothing is kept then)
     */
    static RxmReceiveBuffer[] postAll(RxmConnection c, Endpoint m, io.jofi.Domain domain, boolean register, int each,
                                      boolean tagged, int eagerLimit) throws FabricException {
        RxmPacketMemory memory = new RxmPacketMemory(tagged ? 2 * each : each,
                RxmWireDescriptor.HEADER_LENGTH + eagerLimit);
        try {
            if (register) {
                memory.register(domain);
            }
            RxmReceiveBuffer[] bufs = new RxmReceiveBuffer[memory.count()];
            for (int i = 0; i < bufs.length; i++) {
                bufs[i] = new RxmReceiveBuffer(c, m, memory.buffer(i), memory.desc(), i >= each);
                int rc = bufs[i].post();
                if (rc != 0) {
                    throw new FabricException(-rc, "rxm: posting receive buffer " + i + " on the MSG endpoint failed: "
                            + Errno.strerror(-rc));
                }
            }
            c.receiveMemory = memory;
            return bufs;
        } catch (FabricException | RuntimeException e) {
            memory.close(); // the caller closes the MSG endpoint the buffers were posted on
            throw e;
        }
    }

    /** {@code c}'s MSG endpoint is closed: its receive buffers go, with their registration. */
    static void release(RxmConnection c) {
        c.receiveBuffers = null;
        RxmPacketMemory memory = c.receiveMemory;
        c.receiveMemory = null;
        if (memory != null) {
            memory.close();
        }
    }

    /** Takes what the MSG completion {@code e} says arrived in it: length, tag, flags, data. */
    void arrived(io.jofi.CqEntry e) {
        length = (int) e.len();
        tag = e.tag();
        flags = e.flags();
        data = e.data();
    }

    /**
     * Posts it (again) on its MSG endpoint: 0 or a negative errno. A posted packet buffer is a
     * credit due to the peer (not a {@link #rawTagged} one: rxm's packets never land there).
     */
    int post() {
        buffer.clear();
        int rc = rawTagged ? postedOn.trecv(buffer, desc, 0, 0, -1L, this) : postedOn.recv(buffer, desc, 0, this);
        if (rc == 0 && !rawTagged) {
            credits.posted();
        }
        return rc;
    }
}
