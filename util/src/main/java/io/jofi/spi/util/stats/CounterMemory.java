package io.jofi.spi.util.stats;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * Plain loads and stores of a counter's word by its native address: what a counter update
 * costs when it is one load and one store. A store through a {@code ByteBuffer} view handle
 * re-checks, on every update, the buffer's bounds, that it is writable and its memory
 * session, and re-reads its address: on the 64 B shm path, five updates a message cost
 * 5–8 % of a send-receive round (2026-11-28, {@code benchmarks/stats-cost.sh}), where the
 * budget is 2 %. Agrona's buffers, on Aeron's counters, take the same route.
 *
 * <p>It uses {@code sun.misc.Unsafe} (module {@code jdk.unsupported}), found through the
 * platform class loader, so that an OSGi framework need not export {@code sun.misc}, and
 * called through constant method handles, which the JIT turns into the bare access. Where
 * that is not there, {@link #AVAILABLE} is false and counters keep the checked view handle.
 * Safe because every counter's word lies in a direct buffer that the counter itself keeps
 * reachable (a mapping of the counters file or a direct slab), which Java unmaps only once
 * unreachable; bounds are checked once, when the counter is made.
 */
final class CounterMemory {
    /** Whether raw access works in this JVM (else counters use their view handle). */
    static final boolean AVAILABLE;
    /** {@code long getLong(long address)} bound to the Unsafe instance, or null. */
    private static final MethodHandle GET_LONG;
    /** {@code void putLong(long address, long value)} bound to the Unsafe instance, or null. */
    private static final MethodHandle PUT_LONG;
    /** {@code long getLong(Object o, long offset)} bound to the Unsafe instance, or null. */
    private static final MethodHandle GET_FIELD_LONG;
    /** Where a {@link Buffer} keeps its native address. */
    private static final long ADDRESS_OFFSET;

    static {
        MethodHandle get = null;
        MethodHandle put = null;
        MethodHandle getField = null;
        long addressOffset = -1;
        try {
            Class<?> unsafeClass = ClassLoader.getPlatformClassLoader().loadClass("sun.misc.Unsafe");
            Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
            theUnsafe.setAccessible(true);
            Object unsafe = theUnsafe.get(null);
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            get = lookup.findVirtual(unsafeClass, "getLong", MethodType.methodType(long.class, long.class))
                    .bindTo(unsafe);
            put = lookup.findVirtual(unsafeClass, "putLong", MethodType.methodType(void.class, long.class, long.class))
                    .bindTo(unsafe);
            getField = lookup.findVirtual(unsafeClass, "getLong",
                    MethodType.methodType(long.class, Object.class, long.class)).bindTo(unsafe);
            addressOffset = (long) lookup.findVirtual(unsafeClass, "objectFieldOffset",
                    MethodType.methodType(long.class, Field.class)).bindTo(unsafe)
                    .invokeExact(Buffer.class.getDeclaredField("address"));
        } catch (Throwable e) { // anything at all: the checked path serves instead
            get = null;
            put = null;
            getField = null;
            addressOffset = -1;
        }
        GET_LONG = get;
        PUT_LONG = put;
        GET_FIELD_LONG = getField;
        ADDRESS_OFFSET = addressOffset;
        AVAILABLE = get != null && selfTest();
    }

    private CounterMemory() {
    }

    /**
     * The native address of byte {@code offset} of the direct buffer {@code b}, after checking
     * that the 8 bytes there are inside it; 0 when raw access is off or {@code b} is not direct.
     */
    static long address(ByteBuffer b, int offset) {
        if (!AVAILABLE || !b.isDirect()) {
            return 0;
        }
        if (offset < 0 || offset > b.capacity() - Long.BYTES || (offset & (Long.BYTES - 1)) != 0) {
            throw new IndexOutOfBoundsException("a counter's word at " + offset + " of " + b.capacity() + " bytes");
        }
        return bufferAddress(b) + offset;
    }

    /** The word at {@code address} (plain load). */
    static long get(long address) {
        try {
            return (long) GET_LONG.invokeExact(address);
        } catch (Throwable e) {
            throw new AssertionError(e); // Unsafe.getLong throws nothing checked or unchecked here
        }
    }

    /** Stores {@code value} at {@code address} (plain store). */
    static void put(long address, long value) {
        try {
            PUT_LONG.invokeExact(address, value);
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    private static long bufferAddress(ByteBuffer b) {
        try {
            return (long) GET_FIELD_LONG.invokeExact((Object) b, ADDRESS_OFFSET);
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /** Writes and reads back through both paths once: raw access is used only where it agrees. */
    private static boolean selfTest() {
        try {
            ByteBuffer b = ByteBuffer.allocateDirect(2 * Long.BYTES).order(java.nio.ByteOrder.nativeOrder());
            long a = bufferAddress(b) + Long.BYTES;
            put(a, 0x0102030405060708L);
            return b.getLong(Long.BYTES) == 0x0102030405060708L && get(a) == 0x0102030405060708L && b.getLong(0) == 0;
        } catch (Throwable e) {
            return false;
        }
    }
}
