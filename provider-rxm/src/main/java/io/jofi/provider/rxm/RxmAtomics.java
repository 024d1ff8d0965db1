package io.jofi.provider.rxm;

import static io.jofi.provider.rxm.RxmWireDescriptor.*;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.spi.util.AtomicTable;
import io.jofi.spi.util.Atomics;
import io.jofi.spi.util.MemoryRegistry;
import io.jofi.spi.util.UtilCounter;
import io.jofi.spi.util.UtilMemoryRegion;
import io.jofi.spi.util.stats.CounterGroup;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * rxm's atomics as libfabric 1.17's rxm carries them, both ends: the initiator's request packet
 * and the result its response brings, and the target's software execution of a request on the
 * MSG domain's registered memory with the response it sends back ({@link RxmWireDescriptor},
 * "Atomic request"). Atomics therefore work over any MSG provider and with C {@code ofi_rxm}
 * peers. The initiator sends one {@code FI_INT64} (the long forms) or a typed request of one
 * target entry ({@link #typedCount} elements at most); the target serves every (datatype, op) pair a
 * request names that {@link AtomicTable} serves (a C peer's {@code fi_atomic} of any datatype and
 * count), with {@link AtomicTable}'s arithmetic, element by element.
 *
 * <p>Called under the endpoint's lock. The data path allocates nothing; a request that finds
 * every transmit busy is copied and answered later (that path allocates). What waits so is
 * bounded per connection by the settings' {@code maxUnexpectedBytes}: our answers wait only
 * while our MSG sends do not complete, so a peer that sends requests beyond that without
 * reading its answers breaks the protocol's flow and its connection is ended
 * ({@code ECONNABORTED}), rather than grow the queue until the JVM runs out of memory.
 */
final class RxmAtomics {
    private static final System.Logger LOG = System.getLogger(RxmAtomics.class.getName());
    private static final int WORD = Long.BYTES;

    private final Owner owner;
    private final RxmTransmitPool transmits;
    private final RxmPacketHeader header = new RxmPacketHeader();
    /** The target entries of the request being served, checked before any is changed. */
    private final ByteBuffer[] targets = new ByteBuffer[IOV_LIMIT];
    private final long[] targetIndex = new long[IOV_LIMIT];
    private final long[] targetCount = new long[IOV_LIMIT];
    /** Responses built but refused by a full MSG queue, oldest first (linked by {@code nextPending}). */
    private RxmTransmit unsentHead;
    private RxmTransmit unsentTail;
    /** Requests that found no free transmit, oldest first (a copy each). */
    private Waiting waitingHead;
    private Waiting waitingTail;
    /** The bytes of requests one connection may have waiting ({@link RxmConnection#atomicsWaiting}). */
    private final long waitingLimit;
    /** Requests that found no free transmit (monotonic, as every counter). */
    private final io.jofi.spi.util.stats.StatsCounter waited;
    /** The most bytes one connection had waiting. */
    private final io.jofi.spi.util.stats.StatsCounter waitingHighWater;

    /** A request kept until a transmit frees up. */
    private static final class Waiting {
        final RxmConnection connection;
        final ByteBuffer request;
        final int length;
        Waiting next;

        Waiting(RxmConnection connection, ByteBuffer request, int length) {
            this.connection = connection;
            this.request = request;
            this.length = length;
        }
    }

    /** What the atomics ask of their endpoint: to end a connection that breaks the flow, and its bindings. */
    interface Owner {
        /** Ends {@code c} at the next pass with {@code err}: what waits on it fails, the peer sees it close. */
        void abort(RxmConnection c, int err, String why);

        /** The bound counter of a completion with these flags, or null. */
        UtilCounter counter(long completionFlags);

        /** The MSG domain's registered memory, where requests are served; null when it is not the util registry. */
        MemoryRegistry targetMemory();
    }

    /**
     * @param transmits    where the answers take their transmit
     * @param waitingLimit the bytes of requests one connection may have waiting for a transmit
     * @param counters     the endpoint's counters, which the atomics' own join
     */
    RxmAtomics(Owner owner, RxmTransmitPool transmits, long waitingLimit, CounterGroup counters) {
        this.owner = owner;
        this.transmits = transmits;
        this.waitingLimit = waitingLimit;
        this.waited = counters.counter("atomic requests waited for a transmit");
        this.waitingHighWater = counters.counter("atomic request bytes waiting on a connection (high-water)");
    }

    // =================================================================== initiator

    /**
     * Writes {@code t}'s request packet (its op, operand, compare value, result buffer and
     * target set by the post): one target entry of one element.
     */
    void writeRequest(RxmTransmit t) {
        if (t.atomicCount > 0) {
            writeTypedRequest(t);
            return;
        }
        int wireOp = t.atomicOp == Fi.FI_CSWAP ? OP_ATOMIC_COMPARE : t.result != null ? OP_ATOMIC_FETCH : OP_ATOMIC;
        int operands = t.atomicOp == Fi.FI_ATOMIC_READ ? 0 : WORD; // rxm sends no operand for a read
        int compares = wireOp == OP_ATOMIC_COMPARE ? WORD : 0;
        int length = ATOMIC_OPERANDS + operands + compares;
        ByteBuffer p = startRequest(t, wireOp, length, DATATYPE_INT64, 1);
        int o = HEADER_LENGTH + ATOMIC_OPERANDS;
        if (operands != 0) {
            p.putLong(o, t.operand);
            o += WORD;
        }
        if (compares != 0) {
            p.putLong(o, t.compare);
        }
        p.limit(HEADER_LENGTH + length);
        t.postFlags = 0;
    }

    /**
     * The part of a request both forms write alike into {@code t}'s packet: the packet header, the
     * datatype and op, and one target entry of {@code count} elements (the unused entries zeroed, as
     * C leaves them: nothing of an earlier packet). The operands follow at
     * {@code HEADER_LENGTH + ATOMIC_OPERANDS}.
     */
    private ByteBuffer startRequest(RxmTransmit t, int wireOp, int length, int datatype, long count) {
        RxmPacketHeader h = header.clear();
        h.type = TYPE_ATOMIC;
        h.connId = t.connection.remoteIndex & 0xFFFF_FFFFL;
        h.msgId = t.index;
        h.op = wireOp;
        h.size = length;
        ByteBuffer p = t.packet;
        p.clear();
        h.write(p, 0);
        p.put(ATOMIC_DATATYPE_OFFSET, (byte) datatype);
        p.put(ATOMIC_OP_OFFSET, (byte) t.atomicOp);
        p.put(ATOMIC_IOC_COUNT_OFFSET, (byte) 1);
        int at = HEADER_LENGTH;
        p.putLong(at + ATOMIC_IOC_ADDR, t.remoteAddr);
        p.putLong(at + ATOMIC_IOC_COUNT, count);
        p.putLong(at + ATOMIC_IOC_KEY, t.remoteKey);
        for (int i = at + ATOMIC_IOC_LENGTH; i < at + ATOMIC_OPERANDS; i += WORD) {
            p.putLong(i, 0);
        }
        return p;
    }

    /**
     * The most elements of {@code datatype} one typed request may carry with {@code eagerLimit}
     * bytes behind the packet header (the target entries, the operands and, for a compare, the
     * compare values; the response's old values fit then too), or {@link AtomicTable}'s refusal.
     */
    static int typedCount(int datatype, int op, long kind, int eagerLimit) {
        int budget = eagerLimit - ATOMIC_OPERANDS;
        return AtomicTable.count(datatype, op, kind, kind == Fi.FI_COMPARE_ATOMIC ? budget / 2 : budget);
    }

    /** A typed request: one target entry of {@code t.atomicCount} elements, their operands and compare values. */
    private void writeTypedRequest(RxmTransmit t) {
        int size = AtomicTable.size(t.atomicDatatype);
        int bytes = t.atomicCount * size;
        int wireOp = t.atomicKind == Fi.FI_COMPARE_ATOMIC ? OP_ATOMIC_COMPARE
                : t.atomicKind == Fi.FI_FETCH_ATOMIC ? OP_ATOMIC_FETCH : OP_ATOMIC;
        int operands = t.typedOperands == null ? 0 : bytes; // rxm sends no operand for a read
        int compares = wireOp == OP_ATOMIC_COMPARE ? bytes : 0;
        int length = ATOMIC_OPERANDS + operands + compares;
        ByteBuffer p = startRequest(t, wireOp, length, t.atomicDatatype, t.atomicCount);
        int o = HEADER_LENGTH + ATOMIC_OPERANDS;
        if (operands != 0) {
            p.put(o, t.typedOperands, t.typedOperands.position(), bytes); // host order, as the caller laid them out
        }
        if (compares != 0) {
            p.put(o + operands, t.typedCompares, t.typedCompares.position(), bytes);
        }
        p.limit(HEADER_LENGTH + length);
        t.typedOperands = null;
        t.typedCompares = null;
        t.postFlags = 0;
    }

    /**
     * The response to {@code t}'s request: its result into the caller's buffer (at its position,
     * in its order).
     *
     * @return 0, or the errno the operation fails with (the target's status, or {@code EIO}
     *         for a response that does not fit the request)
     */
    static int readResponse(RxmTransmit t, ByteBuffer b, int len) {
        if (len < HEADER_LENGTH + ATOMIC_RESPONSE_RESULT) {
            return Errno.EIO;
        }
        int status = Integer.reverseBytes(b.getInt(HEADER_LENGTH + ATOMIC_RESPONSE_STATUS)); // network order
        long resultLength = Integer.reverseBytes(b.getInt(HEADER_LENGTH + ATOMIC_RESPONSE_RESULT_LENGTH)) & 0xFFFF_FFFFL;
        if (status != 0) {
            return status < 0 ? -status : status;
        }
        if (t.result == null) {
            return 0;
        }
        if (t.atomicCount > 0) {
            int bytes = t.atomicCount * AtomicTable.size(t.atomicDatatype);
            if (resultLength != bytes || len < HEADER_LENGTH + ATOMIC_RESPONSE_RESULT + bytes) {
                return Errno.EIO;
            }
            t.result.put(t.result.position(), b, HEADER_LENGTH + ATOMIC_RESPONSE_RESULT, bytes);
            return 0;
        }
        if (resultLength != WORD || len < HEADER_LENGTH + ATOMIC_RESPONSE_RESULT + WORD) {
            return Errno.EIO;
        }
        t.result.putLong(t.result.position(), b.getLong(HEADER_LENGTH + ATOMIC_RESPONSE_RESULT));
        return 0;
    }

    // =================================================================== target

    /**
     * A peer's atomic request: executed, answered (now, or once a transmit or MSG room frees up);
     * dropped, its connection ended, when its connection's waiting requests would exceed the limit.
     */
    void request(RxmConnection c, ByteBuffer b, RxmPacketHeader h, int len) {
        RxmTransmit t = transmits.takeForAnswer();
        if (t == null) {
            if (c.atomicsWaiting > waitingLimit) {
                return; // its end is noted already: nothing more of it is kept
            }
            c.atomicsWaiting += len;
            waited.increment();
            waitingHighWater.max(c.atomicsWaiting);
            if (c.atomicsWaiting > waitingLimit) {
                LOG.log(System.Logger.Level.WARNING, "rxm: " + c.peer + " sent atomic requests beyond "
                        + waitingLimit + " bytes waiting for our answers, which it does not read; connection ended");
                owner.abort(c, Errno.ECONNABORTED, "atomic requests beyond " + waitingLimit
                        + " bytes waiting for transmits (the peer does not read the answers)");
                return;
            }
            ByteBuffer copy = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
            copy.put(0, b, 0, len);
            Waiting w = new Waiting(c, copy, len);
            if (waitingTail == null) {
                waitingHead = w;
            } else {
                waitingTail.next = w;
            }
            waitingTail = w;
            return;
        }
        serve(c, b, h, len, t);
    }

    private void serve(RxmConnection c, ByteBuffer b, RxmPacketHeader h, int len, RxmTransmit t) {
        t.kind = RxmTransmit.Kind.CONTROL;
        t.connection = c;
        ByteBuffer r = t.packet;
        r.clear();
        int datatype = b.get(ATOMIC_DATATYPE_OFFSET) & 0xFF;
        int op = b.get(ATOMIC_OP_OFFSET) & 0xFF;
        long msgId = h.msgId;
        int wireOp = h.op;
        int resultLength = 0;
        int status = execute(b, h, len, datatype, op, r);
        if (status > 0) {
            resultLength = status;
            status = 0;
        }
        RxmPacketHeader out = header.clear();
        out.type = TYPE_ATOMIC_RESPONSE;
        out.connId = c.remoteIndex & 0xFFFF_FFFFL;
        out.msgId = msgId;
        out.op = wireOp;
        out.size = ATOMIC_RESPONSE_RESULT + resultLength;
        out.write(r, 0);
        r.put(ATOMIC_DATATYPE_OFFSET, (byte) datatype);
        r.put(ATOMIC_OP_OFFSET, (byte) op);
        r.putInt(HEADER_LENGTH + ATOMIC_RESPONSE_STATUS, Integer.reverseBytes(status));
        r.putInt(HEADER_LENGTH + ATOMIC_RESPONSE_RESULT_LENGTH, Integer.reverseBytes(resultLength));
        r.limit(HEADER_LENGTH + ATOMIC_RESPONSE_RESULT + resultLength);
        t.postFlags = 0;
        send(t);
    }

    /**
     * Checks every target entry, then applies the operation to each element, the old values
     * behind the response's status in {@code r}.
     *
     * @return the result length ({@code >= 0}) or a negative fi_errno for the response's status
     */
    private int execute(ByteBuffer b, RxmPacketHeader h, int len, int datatype, int op, ByteBuffer r) {
        int wireOp = h.op;
        int count = b.get(ATOMIC_IOC_COUNT_OFFSET) & 0xFF;
        if (wireOp < OP_ATOMIC || wireOp > OP_ATOMIC_COMPARE || count > IOV_LIMIT
                || len < HEADER_LENGTH + ATOMIC_OPERANDS) {
            return -Errno.EINVAL;
        }
        if (!served(datatype, op, wireOp)) {
            return -Errno.EOPNOTSUPP;
        }
        MemoryRegistry registry = owner.targetMemory();
        if (registry == null) {
            return -Errno.EOPNOTSUPP; // this MSG provider's memory is not the util registry's
        }
        boolean fetch = wireOp != OP_ATOMIC;
        long access = Atomics.access(op, fetch);
        int size = AtomicTable.size(datatype);
        long elements = 0;
        for (int i = 0; i < count; i++) {
            int e = HEADER_LENGTH + i * ATOMIC_IOC_LENGTH;
            long addr = b.getLong(e + ATOMIC_IOC_ADDR);
            long n = b.getLong(e + ATOMIC_IOC_COUNT);
            long key = b.getLong(e + ATOMIC_IOC_KEY);
            if (n < 0 || n > Integer.MAX_VALUE / size) {
                return -Errno.EINVAL;
            }
            long index = registry.targetIndex(key, addr, n * size, access);
            UtilMemoryRegion region = registry.lookup(key);
            if (index < 0 || region == null) {
                return -Errno.EACCES; // as rxm answers any failed check of a target entry
            }
            targets[i] = region.buffer();
            targetIndex[i] = index;
            targetCount[i] = n;
            elements += n;
        }
        long operandBytes = op == Fi.FI_ATOMIC_READ ? 0 : elements * size;
        long compareBytes = wireOp == OP_ATOMIC_COMPARE ? elements * size : 0;
        long resultBytes = fetch ? elements * size : 0;
        if (h.size < ATOMIC_OPERANDS + operandBytes + compareBytes
                || len < HEADER_LENGTH + ATOMIC_OPERANDS + operandBytes + compareBytes
                || HEADER_LENGTH + ATOMIC_RESPONSE_RESULT + resultBytes > r.capacity()) {
            clearTargets(count);
            return -Errno.EINVAL;
        }
        int operandAt = HEADER_LENGTH + ATOMIC_OPERANDS;
        int compareAt = operandAt + (int) operandBytes;
        int resultAt = HEADER_LENGTH + ATOMIC_RESPONSE_RESULT;
        int k = 0;
        for (int i = 0; i < count; i++) {
            // the operands, compare values and old values of this entry's elements follow the earlier entries'
            AtomicTable.apply(datatype, op, targets[i], (int) targetIndex[i], (int) targetCount[i],
                    operandBytes == 0 ? null : b, operandAt + k * size, compareBytes == 0 ? null : b,
                    compareAt + k * size, fetch ? r : null, resultAt + k * size);
            k += (int) targetCount[i];
        }
        clearTargets(count);
        UtilCounter counter = owner.counter(fetch ? Fi.FI_REMOTE_READ : Fi.FI_REMOTE_WRITE);
        if (counter != null) {
            counter.increment(); // rxm's target counts a served atomic as a remote write (read when fetching)
        }
        return (int) resultBytes;
    }

    /** Whether this target serves {@code op} on {@code datatype} in the form {@code wireOp} ({@link AtomicTable#valid}). */
    private static boolean served(int datatype, int op, int wireOp) {
        long kind = wireOp == OP_ATOMIC_COMPARE ? Fi.FI_COMPARE_ATOMIC : wireOp == OP_ATOMIC_FETCH ? Fi.FI_FETCH_ATOMIC : 0;
        return AtomicTable.valid(datatype, op, kind) == 0;
    }

    private void clearTargets(int count) {
        for (int i = 0; i < count; i++) {
            targets[i] = null;
        }
    }

    private void send(RxmTransmit t) {
        if (!t.connection.isConnected()) {
            transmits.give(t); // the initiator's side of the connection is gone: nobody to answer
            return;
        }
        int rc = RxmSendPath.postNow(t);
        if (rc == -Errno.EAGAIN) {
            if (unsentTail == null) {
                unsentHead = t;
            } else {
                unsentTail.nextPending = t;
            }
            unsentTail = t;
        } else if (rc != 0) {
            LOG.log(System.Logger.Level.WARNING, "rxm: the atomic response to " + t.connection.peer + " failed: "
                    + Errno.strerror(-rc));
            transmits.give(t); // (which forgets its connection)
        }
    }

    /** Sends the responses a full MSG queue refused and serves the requests that waited for a transmit. */
    int retry() {
        int n = 0;
        while (unsentHead != null) {
            RxmTransmit t = unsentHead;
            if (t.connection.isConnected()) {
                int rc = RxmSendPath.postNow(t);
                if (rc == -Errno.EAGAIN) {
                    return n;
                }
                if (rc != 0) {
                    transmits.give(t);
                }
            } else {
                transmits.give(t);
            }
            unsentHead = t.nextPending;
            t.nextPending = null;
            if (unsentHead == null) {
                unsentTail = null;
            }
            n++;
        }
        while (waitingHead != null) {
            RxmTransmit t = transmits.takeForAnswer();
            if (t == null) {
                return n;
            }
            Waiting w = waitingHead;
            waitingHead = w.next;
            if (waitingHead == null) {
                waitingTail = null;
            }
            w.connection.atomicsWaiting -= w.length;
            serve(w.connection, w.request, header.read(w.request, 0), w.length, t);
            n++;
        }
        return n;
    }

    /**
     * {@code c} ended: its unsent responses leave the queue (the caller gives their transmits
     * back with the connection's others; answered later they would go to whoever took them
     * next), and its waiting requests are dropped (nobody is left to answer).
     */
    void connectionEnded(RxmConnection c) {
        RxmTransmit kept = null;
        RxmTransmit keptTail = null;
        for (RxmTransmit t = unsentHead; t != null; ) {
            RxmTransmit next = t.nextPending;
            t.nextPending = null;
            if (t.connection != c) {
                if (kept == null) {
                    kept = t;
                } else {
                    keptTail.nextPending = t;
                }
                keptTail = t;
            }
            t = next;
        }
        unsentHead = kept;
        unsentTail = keptTail;
        Waiting keptWaiting = null;
        Waiting keptWaitingTail = null;
        for (Waiting w = waitingHead; w != null; w = w.next) {
            if (w.connection != c) {
                if (keptWaiting == null) {
                    keptWaiting = w;
                } else {
                    keptWaitingTail.next = w;
                }
                keptWaitingTail = w;
            }
        }
        if (keptWaitingTail != null) {
            keptWaitingTail.next = null;
        }
        waitingHead = keptWaiting;
        waitingTail = keptWaitingTail;
        c.atomicsWaiting = 0;
    }
}
