package io.jofi.provider.shm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Recognises, raises at a chosen point, and attributes memory faults on mapped files (docs/SHM-LAYOUT.md "Bad input, faults, security"): a region, bounce-buffer or registration file truncated while mapped makes the
 * next access beyond its new end raise SIGBUS.
 *
 * <h2>What HotSpot 17 does with that SIGBUS (sources: jdk17u {@code src/hotspot})</h2>
 * <ul>
 * <li>Compiled code (C1/C2, {@code nmethod::has_unsafe_access}), the interpreter's guarded
 *     Unsafe get/put natives ({@code GuardUnsafeAccess} in {@code prims/unsafe.cpp}) and the
 *     {@code copyMemory} stubs ({@code UnsafeCopyMemory} marks): the signal handler
 *     ({@code os_cpu/linux_x86/os_linux_x86.cpp}) calls
 *     {@code SharedRuntime::handle_unsafe_access}, which only records
 *     {@code _async_unsafe_access_error} in the thread ({@code set_pending_unsafe_access_error})
 *     and resumes after the faulting instruction — a load yields a stale register, a store is
 *     lost; a {@code copyMemory} stub resumes at its error exit, so the copy stops.</li>
 * <li>The {@link InternalError} is thrown only by {@code JavaThread::check_and_handle_async_exceptions}
 *     ({@code runtime/thread.cpp}), reached from {@code ThreadInVMfromJava} on the way back
 *     from a runtime entry ({@code JRT_ENTRY}/{@code JRT_BLOCK}: a slow-path allocation, a
 *     TLAB refill, a call-site resolution ...). A JNI or Unsafe native's return does
 *     <em>not</em> raise it ({@code check_special_condition_for_native_trans} passes
 *     {@code check unsafe access error = false}), nor does an unarmed safepoint poll. So the
 *     error surfaces at the thread's next such entry: possibly after our method returned, in
 *     the application's code. Nothing cheap in Java forces that entry.</li>
 * <li>Worse, the interpreter's {@code Unsafe_CompareAndSet*} / {@code CompareAndExchange*}
 *     on off-heap memory take no {@code GuardUnsafeAccess}: a CAS on a truncated mapping that
 *     runs interpreted (before compilation, or after a deoptimisation) is a fatal SIGBUS in
 *     the VM — the process dies (seen: {@code hs_err} in {@code Unsafe_CompareAndSetLong}
 *     from {@code MpscRing.claim}).</li>
 * </ul>
 *
 * <h2>What this class does about it</h2>
 * {@link #check} probes a mapping's last page by copying its last {@value #PROBE_BYTES} bytes with
 * {@code copyMemory} (a bulk {@link ByteBuffer#put(int, ByteBuffer, int, int)}) into a scratch preset
 * to a sentinel: a fault stops the copy, the sentinel stays, and the probe knows — at once,
 * in the calling thread, with no system call and no allocation (one 32-byte stub copy). Only
 * then does it force the pending error out with {@link #deliverPending()} (a slow-path
 * allocation, a {@code JRT_BLOCK} entry) and throw it, inside the data-path call whose
 * {@code catch} turns it into a failed peer (or a failed endpoint for our own region). The
 * shm code probes each foreign mapping before an atomic on it (so a CAS never runs on a
 * mapping already truncated) and after each access sequence (so a fault raised by plain
 * loads and stores comes out before the call returns). Truncation to any length below the
 * mapping's end removes its last page, so the last bytes are the ones to probe.
 * <p>
 * What remains: a truncation that lands between the probe before an atomic and the atomic
 * itself (a window of nanoseconds) still faults there — delivered by the probe after it when
 * compiled, fatal for the process when that code runs interpreted. Only a file that cannot
 * shrink (a sealed memfd, {@code F_SEAL_SHRINK}) would close that window.
 * <p>
 * Whoever catches a fault does not trust where it surfaced but asks which mapping is now
 * shorter than what was mapped ({@link #shorter}).
 */
final class MappingFaults {
    /** Larger than any TLAB fast path: its allocation enters the VM, which raises a pending fault. */
    private static final int SLOW_PATH_BYTES = 2 << 20;

    /**
     * Bytes a probe copies: the mapping's last 32, not its last word. HotSpot copies up to 32
     * bytes with one masked AVX-512 load and store where the CPU has them; an 8-byte copy masks
     * off 24 bytes, and when those lie beyond the mapping in an unmapped page, every probe
     * takes the CPU's fault-suppression assist (hundreds of cycles). Whether the next page is
     * mapped depends on where mmap put the region, so the same JVM build ran the 64 B shm path
     * at 0.45 M or 1.1 M round trips a second by chance (2026-11-28, perf: 29 % of the time in
     * {@code jlong_disjoint_arraycopy_avx3} at the masked load). 32 bytes fill the vector:
     * nothing is masked off, and the truncation the probe looks for removes whole pages.
     */
    static final int PROBE_BYTES = 32;

    /** What a probe presets its scratch to; a second, different one tells a word equal to the first from a fault. */
    static final long SENTINEL = 0x6a6f66692d736867L;
    /** Each thread's scratch for {@link #readable} (direct: the copy is memory to memory). */
    private static final ThreadLocal<ByteBuffer> SCRATCH =
            ThreadLocal.withInitial(MappingFaults::newScratch);

    /** Where {@link #deliverPending()} publishes its allocation (see there). */
    private static volatile byte[] slowPathSink;

    private MappingFaults() {
    }

    /**
     * Whether the last bytes of {@code mapping} can be read: false when its file was truncated
     * below the mapping's end (the {@code copyMemory} faulted and left the sentinel). A fault
     * seen here is also pending in this thread: raise it with {@link #raise()}.
     */
    static boolean readable(ByteBuffer mapping) {
        return readable(mapping, SCRATCH.get());
    }

    /**
     * {@link #readable(ByteBuffer)} with the caller's own direct scratch
     * ({@link #newScratch()}): for a mapping probed by one thread at a time (an endpoint's
     * lock), which saves the thread-local lookup per probe — a miss in a crowded
     * {@code ThreadLocalMap} cost the streamed path about a tenth of the receiver's time in
     * a JFR profile (provider-shm README, "Performance").
     */
    static boolean readable(ByteBuffer mapping, ByteBuffer scratch) {
        // A mapping shorter than the probe (a tiny registered buffer) lies in one page: all of it.
        int n = Math.min(PROBE_BYTES, mapping.capacity());
        if (n < Long.BYTES) {
            return true;
        }
        int at = mapping.capacity() - n;
        int last = n - Long.BYTES; // the scratch word the copy writes last
        ByteBuffer s = scratch;
        s.putLong(last, SENTINEL);
        s.put(0, mapping, at, n);
        if (s.getLong(last) != SENTINEL) {
            return true;
        }
        s.putLong(last, ~SENTINEL); // the word may hold the sentinel itself: it cannot hold both
        s.put(0, mapping, at, n);
        return s.getLong(last) != ~SENTINEL;
    }

    /**
     * Probes {@code mapping} ({@link #readable}) and, when it faulted, throws the fault here
     * ({@link #raise()}), inside the caller's {@code try}.
     */
    static void check(ByteBuffer mapping) {
        if (!readable(mapping)) {
            throw raise();
        }
    }

    /** {@link #check(ByteBuffer)} with the caller's own scratch (see {@link #readable(ByteBuffer, ByteBuffer)}). */
    static void check(ByteBuffer mapping, ByteBuffer scratch) {
        if (!readable(mapping, scratch)) {
            throw raise();
        }
    }

    /** A scratch for {@link #check(ByteBuffer, ByteBuffer)}: never shared by two threads at once. */
    static ByteBuffer newScratch() {
        return ByteBuffer.allocateDirect(PROBE_BYTES).order(ByteOrder.nativeOrder());
    }

    /** The fault pending in this thread, forced out now ({@link #deliverPending()}), or one made for it. */
    static InternalError raise() {
        InternalError e = deliverPending();
        return e != null ? e : new InternalError("a fault occurred in an unsafe memory access operation: "
                + "a mapped file was truncated");
    }

    /** Whether {@code t} is the JVM's report of a fault on mapped memory. */
    static boolean isFault(Throwable t) {
        return t instanceof InternalError && t.getMessage() != null && t.getMessage().contains("unsafe memory access");
    }

    /**
     * Whether the file at {@code file} is now shorter than {@code end}, the end of what was
     * mapped of it (a missing file counts as not truncated: its owner removed it, and the
     * pages of an unlinked file stay valid).
     */
    static boolean shorter(Path file, long end) {
        try {
            return Files.size(file) < end;
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException | RuntimeException e) {
            return Files.exists(file, LinkOption.NOFOLLOW_LINKS);
        }
    }

    /**
     * Makes this thread raise a fault still pending from an earlier access, here: a slow-path
     * allocation enters the VM, which throws pending asynchronous errors. Off the data path:
     * only once a truncation has been seen.
     *
     * @return the fault that was pending, or null
     */
    static InternalError deliverPending() {
        try {
            // Published, so that the compiler cannot drop an allocation whose result is unused: it
            // did, so raise() made its own error and the pending one surfaced later, in a catch
            // handler (ShmTruncatedCrossProcessTest: 2 runs in 6 failed so; with this alone 6 in 6 passed).
            slowPathSink = new byte[SLOW_PATH_BYTES];
            slowPathSink = null;
            return null;
        } catch (InternalError e) {
            if (isFault(e)) {
                return e;
            }
            throw e;
        }
    }
}
