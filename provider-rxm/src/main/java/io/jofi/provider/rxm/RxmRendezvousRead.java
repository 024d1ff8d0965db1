package io.jofi.provider.rxm;

import io.jofi.RmaMsg;
import io.jofi.spi.util.ArrivingMessage;
import io.jofi.spi.util.PostedReceive;
import io.jofi.spi.util.UnexpectedMessage;
import java.nio.ByteBuffer;

/**
 * The receiving side of one rendezvous, pooled: the message's header, the sender's buffers
 * (from the rendezvous descriptor), where the bytes go (a matched receive, or the heap copy
 * of an unexpected message), and the RMA reads still outstanding. When the last read is in,
 * the sender is told ({@link RxmWireDescriptor#TYPE_RNDV_READ_DONE}) and the receive completes.
 */
final class RxmRendezvousRead {
    final ArrivingMessage header = new ArrivingMessage();
    final long[] remoteAddr = new long[RxmWireDescriptor.IOV_LIMIT];
    final long[] remoteLen = new long[RxmWireDescriptor.IOV_LIMIT];
    final long[] remoteKey = new long[RxmWireDescriptor.IOV_LIMIT];
    final RmaMsg rma = new RmaMsg(RxmWireDescriptor.IOV_LIMIT);
    int remoteCount;

    RxmConnection connection;
    long msgId;
    /** The matched receive, or null. */
    PostedReceive receive;
    /** The unexpected message being read, or null. */
    UnexpectedMessage unexpected;
    /** Where the bytes are read when not straight into {@link #receive}: the heap copy. */
    ByteBuffer staging;
    /** Bytes read (at most the receive's capacity). */
    long placed;
    /** Reads planned: one straight into the receive's buffers, or one per sender buffer into {@link #staging}. */
    int readCount;
    /** The next planned read to post (reads wait when the MSG queue is full). */
    int nextRead;
    /** Reads posted and not completed. */
    int readsLeft;
    /** Whether the single read goes straight into {@link #receive}. */
    boolean direct;
    /** The first error of a read, or 0. */
    int error;
    /** Whether the receive (or the unexpected message) was completed. */
    boolean done;
    /** The read-done answer could not be sent yet (no transmit free, or the MSG queue full). */
    boolean answerPending;
    /** Whether it waits on the deferred list. */
    boolean deferred;
    /** Rendezvous by write: the registration of the buffer offered to the sender, or null. */
    io.jofi.MemoryRegion offered;
    RxmRendezvousRead next;

    void reset() {
        connection = null;
        receive = null;
        unexpected = null;
        staging = null;
        placed = 0;
        readCount = 0;
        nextRead = 0;
        readsLeft = 0;
        direct = false;
        error = 0;
        done = false;
        remoteCount = 0;
        answerPending = false;
        deferred = false;
        offered = null;
        next = null;
    }
}
