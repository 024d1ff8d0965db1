package io.jofi.spi.util.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One counter's value in a counters file, updated by a single writer with a plain load and a
 * plain store: never a lock, an allocation, a fence or an atomic read-modify-write on the
 * update path (a release store cost an alignment check and a compiler barrier per update, on a
 * path that updates several counters per message), and by address where the JVM allows
 * ({@link CounterMemory}: a view handle's checks per update cost the 64 B shm path more than
 * the budget). The value is an aligned 8-byte word, which
 * a 64-bit JVM stores whole; readers (this process or another) load with acquire and see the
 * writer's values in the order it stored them, a little late at most: a counter only its writer
 * updates never goes down.
 *
 * <p><b>One writer.</b> The owner updates it only from the thread that holds the owner's
 * lock, or from its one progress thread (what {@code ReceiveQueue}, the endpoint's funnels
 * and the event queue already guarantee). Two unsynchronised writers could lose an update;
 * that is what Aeron's single-writer counters accept too, and why the util objects each own
 * their counters instead of sharing them.
 *
 * <p><b>The shared exceptions</b>, for an owner written by many threads at once (a completion
 * queue: every endpoint bound to it writes): {@link #claimNext()} is a multi-producer
 * position that the owner claims with an atomic add anyway (the completion ring's tail lives
 * here, so counting its entries costs nothing added); {@link #maxShared} takes a CAS only
 * when the mark rises (at most the owner's capacity times in its life); {@link #addShared}
 * is an atomic add for the exceptional paths (error entries, an overrun), never for a
 * successful operation.
 */
public final class StatsCounter {
    /**
     * {@code -Djofi.stats=false}: updates do nothing. A constant the JIT folds, so that the
     * benchmarks' "off" runs measure the data path without a single counter store.
     */
    private static final boolean ON = StatsSettings.enabled();
    static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    /** The buffer holding the value: also what keeps {@link #address}'s memory mapped. */
    private final ByteBuffer values;
    private final int offset;
    /** The value's native address for {@link CounterMemory}'s unchecked access, or 0: use {@link #LONG}. */
    private final long address;
    private final int id;
    private final String label;

    StatsCounter(ByteBuffer values, int offset, int id, String label) {
        this.values = values;
        this.offset = offset;
        this.address = CounterMemory.address(values, offset);
        this.id = id;
        this.label = label;
    }

    /** Adds one. */
    public void increment() {
        add(1);
    }

    /** Adds {@code n} (&gt;= 0 keeps it monotonic). */
    public void add(long n) {
        if (!ON) {
            return;
        }
        long a = address;
        if (a != 0) {
            CounterMemory.put(a, CounterMemory.get(a) + n);
        } else {
            LONG.set(values, offset, (long) LONG.get(values, offset) + n);
        }
    }

    /** A high-water mark: stores {@code v} when it is above the value. */
    public void max(long v) {
        if (!ON) {
            return;
        }
        long a = address;
        if (a != 0) {
            if (v > CounterMemory.get(a)) {
                CounterMemory.put(a, v);
            }
        } else if (v > (long) LONG.get(values, offset)) {
            LONG.set(values, offset, v);
        }
    }

    /**
     * The value before an atomic add of one: a position several producers claim (the owner's
     * own claim, not an added cost). Works with statistics off too: the owner depends on it.
     */
    public long claimNext() {
        return (long) LONG.getAndAdd(values, offset, 1L);
    }

    /** {@link #claimNext()} for {@code n} consecutive positions at once (one atomic add): the first of them. */
    public long claimNext(int n) {
        return (long) LONG.getAndAdd(values, offset, (long) n);
    }

    /** A high-water mark several threads raise: a CAS only when {@code v} is above the value. */
    public void maxShared(long v) {
        if (!ON) {
            return;
        }
        long a = address;
        if (a != 0 && v <= CounterMemory.get(a)) {
            return; // the common case, one plain load: a stale value only costs a CAS that fails
        }
        long cur;
        while (v > (cur = (long) LONG.getAcquire(values, offset))) {
            if (LONG.compareAndSet(values, offset, cur, v)) {
                return;
            }
        }
    }

    /** Adds one, for several writers: an atomic add, for exceptional paths only (an error entry). */
    public void addShared() {
        if (ON) {
            LONG.getAndAdd(values, offset, 1L);
        }
    }

    /** The value (acquire load). */
    public long get() {
        return (long) LONG.getAcquire(values, offset);
    }

    /** Its record number in the file, or -1 when it is not in a file (statistics off, or the file full). */
    public int id() {
        return id;
    }

    /** Its label. */
    public String label() {
        return label;
    }

    @Override
    public String toString() {
        return label + " = " + get();
    }
}
