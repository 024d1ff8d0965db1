package io.jofi.provider.shm.cma;

import io.jofi.Errno;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Cross-memory attach: {@code process_vm_readv(2)} copies bytes straight from another
 * process's memory into ours — one copy, done by the kernel — which is how the shm provider
 * moves large messages (the receiver reads the sender's buffer into the posted receive
 * buffer). The kernel allows it between processes that could ptrace each other (same uid, no
 * Yama restriction or {@code CAP_SYS_PTRACE}); the provider proves that per peer with a
 * {@link #probe} before it relies on it.
 *
 * <p><b>Availability</b> ({@link #unavailableReason()}) is decided once per class loader, as
 * our transports report theirs: JNA missing (the bundle imports {@code com.sun.jna}
 * optionally), the C library without the call, or the kernel refusing it to this very
 * process. Nothing on the data path throws: reads answer 0 or a positive errno taken from
 * {@code Native.getLastError()}.
 *
 * <p><b>Safety.</b> Remote addresses come from shared memory and are not trusted: the kernel
 * checks them against the remote address space and answers {@code EFAULT}, it never faults
 * here. Local addresses are always ours and inside the destination buffer
 * ({@link #read} checks the range against the buffer's capacity).
 *
 * <p><b>Allocation.</b> An instance owns its native {@code struct iovec} arrays (local and
 * remote, {@link IovecDescriptor}), a probe word, and a direct scratch buffer for heap
 * destinations (made on first use); buffer addresses are cached per buffer object (weakly,
 * a table of {@value #ADDRESS_CACHE} entries indexed by the identity hash, each buffer in one
 * of {@value #ADDRESS_PROBES} places), so steady-state calls allocate nothing even when an
 * application cycles through many buffer objects (e.g. one view of a buffer per posted
 * receive, as fabtests' bw keeps 64). Not thread-safe:
 * one owner (an endpoint, under its lock).
 */
public final class CrossMemoryAttach {
    /** Remote iovecs one {@link #read} passes at most (a message carries up to this many). */
    public static final int MAX_IOVS = 16;
    /** Bytes of the scratch buffer a heap destination is filled through, chunk by chunk. */
    public static final int SCRATCH = 256 << 10;
    /** Direct buffers whose native address is remembered (a power of two). */
    static final int ADDRESS_CACHE = 256;
    /** Consecutive places of the table a buffer may take (from its identity hash on). */
    static final int ADDRESS_PROBES = 4;

    private static final String UNAVAILABLE = check();

    private final ByteBuffer local = ByteBuffer.allocateDirect(IovecDescriptor.SIZE).order(ByteOrder.nativeOrder());
    private final ByteBuffer remote = ByteBuffer.allocateDirect(IovecDescriptor.SIZE * MAX_IOVS)
            .order(ByteOrder.nativeOrder());
    private final ByteBuffer word = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
    private final ByteBuffer probeWord = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
    private final long localAddress;
    private final long remoteAddress;
    private final long wordAddress;
    private final long probeAddress;
    private final long probeValue;
    private ByteBuffer scratch;
    private long scratchAddress;
    @SuppressWarnings("unchecked")
    private final WeakReference<ByteBuffer>[] cached = new WeakReference[ADDRESS_CACHE];
    private final long[] cachedAddress = new long[ADDRESS_CACHE];
    /** Which of a full probe sequence's places the next miss replaces (round robin). */
    private int nextVictim;

    /**
     * An instance with its native arrays.
     *
     * @throws IllegalStateException when {@link #unavailableReason()} is not null
     */
    public CrossMemoryAttach() {
        if (UNAVAILABLE != null) {
            throw new IllegalStateException("cross-memory attach is not available: " + UNAVAILABLE);
        }
        localAddress = CmaNative.address(local);
        remoteAddress = CmaNative.address(remote);
        wordAddress = CmaNative.address(word);
        probeAddress = CmaNative.address(probeWord);
        long v = System.nanoTime() ^ (ProcessHandle.current().pid() << 40) ^ 0x5DEECE66DL;
        probeValue = v == 0 ? 1 : v;
        probeWord.putLong(0, probeValue);
    }

    /** Whether {@code process_vm_readv} works in this JVM (see {@link #unavailableReason()}). */
    public static boolean available() {
        return UNAVAILABLE == null;
    }

    /**
     * Why cross-memory attach is off in this JVM, or null when it is available: "JNA missing",
     * "process_vm_readv missing from the C library", or the errno the kernel gave a read of
     * this process's own memory.
     */
    public static String unavailableReason() {
        return UNAVAILABLE;
    }

    private static String check() {
        try {
            CmaNative.bind();
        } catch (NoClassDefFoundError e) {
            return "JNA missing (com.sun.jna cannot be loaded: " + e.getMessage() + ")";
        } catch (UnsatisfiedLinkError e) {
            String m = String.valueOf(e.getMessage());
            return m.contains("process_vm_readv")
                    ? "process_vm_readv missing from the C library: " + firstLine(m)
                    : "JNA cannot load its native part: " + firstLine(m);
        } catch (LinkageError | SecurityException e) {
            return "JNA cannot be used: " + firstLine(String.valueOf(e.getMessage()));
        }
        // the kernel may lack CMA (ENOSYS) or forbid it even to ourselves (seccomp: EPERM)
        try {
            ByteBuffer src = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
            ByteBuffer dst = ByteBuffer.allocateDirect(8 + 2 * IovecDescriptor.SIZE).order(ByteOrder.nativeOrder());
            src.putLong(0, 0x4A4F4649434D4121L);
            long d = CmaNative.address(dst);
            dst.putLong(8 + IovecDescriptor.BASE, d);
            dst.putLong(8 + IovecDescriptor.LEN, 8);
            dst.putLong(24 + IovecDescriptor.BASE, CmaNative.address(src));
            dst.putLong(24 + IovecDescriptor.LEN, 8);
            long r = CmaNative.process_vm_readv((int) ProcessHandle.current().pid(), d + 8, 1, d + 24, 1, 0);
            if (r != 8) {
                int errno = r < 0 ? CmaNative.lastError() : Errno.EIO;
                return "process_vm_readv of this process's own memory failed: " + Errno.strerror(errno) + " (errno "
                        + errno + ")";
            }
            if (dst.getLong(0) != src.getLong(0)) {
                return "process_vm_readv of this process's own memory read other bytes";
            }
            return null;
        } catch (LinkageError e) {
            return "JNA cannot be used: " + firstLine(String.valueOf(e.getMessage()));
        }
    }

    private static String firstLine(String m) {
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    /** The native address of this instance's probe word (published to peers, read by their {@link #probe}). */
    public long probeAddress() {
        return probeAddress;
    }

    /** The value the probe word holds (never 0). */
    public long probeValue() {
        return probeValue;
    }

    /**
     * The native address of byte 0 of a direct buffer, cached per buffer object (a miss
     * allocates a JNA pointer and a weak reference; a hit nothing). A buffer's places are
     * {@value #ADDRESS_PROBES} consecutive entries from its identity hash: a lookup reads at
     * most that many, and a miss takes the first empty (or collected) one, else replaces one
     * of them in turn.
     *
     * @return the address, or 0 for a heap buffer
     */
    public long address(ByteBuffer buf) {
        if (!buf.isDirect()) {
            return 0;
        }
        int home = System.identityHashCode(buf) & (ADDRESS_CACHE - 1);
        int free = -1;
        for (int k = 0; k < ADDRESS_PROBES; k++) {
            int i = (home + k) & (ADDRESS_CACHE - 1);
            WeakReference<ByteBuffer> r = cached[i];
            ByteBuffer b = r == null ? null : r.get();
            if (b == buf) {
                return cachedAddress[i];
            }
            if (b == null && free < 0) {
                free = i;
            }
        }
        long a = CmaNative.address(buf);
        if (free < 0) {
            free = (home + nextVictim) & (ADDRESS_CACHE - 1);
            nextVictim = (nextVictim + 1) % ADDRESS_PROBES;
        }
        cached[free] = new WeakReference<>(buf);
        cachedAddress[free] = a;
        return a;
    }

    /**
     * Reads the 8-byte word at {@code address} of process {@code pid} and compares it with
     * {@code expected}: the per-peer proof that this process may read that one.
     *
     * @return 0 when the word was read and holds {@code expected}; {@code EIO} when it holds
     *         something else; otherwise the errno of {@code process_vm_readv} ({@code EPERM},
     *         {@code ESRCH}, {@code EFAULT}, ...)
     */
    public int probe(int pid, long address, long expected) {
        if (pid <= 0) {
            return Errno.ESRCH;
        }
        word.putLong(0, ~expected);
        local.putLong(IovecDescriptor.BASE, wordAddress);
        local.putLong(IovecDescriptor.LEN, 8);
        remote.putLong(IovecDescriptor.BASE, address);
        remote.putLong(IovecDescriptor.LEN, 8);
        long r = CmaNative.process_vm_readv(pid, localAddress, 1, remoteAddress, 1, 0);
        if (r < 0) {
            return errno();
        }
        return r == 8 && word.getLong(0) == expected ? 0 : Errno.EIO;
    }

    /**
     * Reads bytes {@code [from, from + len)} of a message that lies in process {@code pid} as
     * the iovec list {@code (addrs[i], lens[i])}, {@code i < count}, into {@code dst} at
     * absolute index {@code at}: straight into a direct buffer, through the scratch buffer in
     * chunks for a heap buffer.
     *
     * @return 0, or a positive errno: {@code EINVAL} for a range outside {@code dst} or the
     *         message, else {@code process_vm_readv}'s ({@code EFAULT} for a bad remote
     *         address, {@code ESRCH} for a process gone, {@code EPERM}); {@code EIO} when the
     *         kernel stops making progress
     */
    public int read(int pid, long[] addrs, long[] lens, int count, long from, ByteBuffer dst, int at, int len) {
        if (at < 0 || len < 0 || at > dst.capacity() - len || from < 0 || count < 0 || count > MAX_IOVS
                || pid <= 0) {
            return Errno.EINVAL;
        }
        if (len == 0) {
            return 0;
        }
        if (dst.isDirect()) {
            long base = address(dst);
            return base == 0 ? Errno.EINVAL : readNative(pid, addrs, lens, count, from, base + at, len);
        }
        if (scratch == null) {
            scratch = ByteBuffer.allocateDirect(SCRATCH);
            scratchAddress = CmaNative.address(scratch);
        }
        int done = 0;
        while (done < len) {
            int n = Math.min(SCRATCH, len - done);
            int rc = readNative(pid, addrs, lens, count, from + done, scratchAddress, n);
            if (rc != 0) {
                return rc;
            }
            dst.put(at + done, scratch, 0, n);
            done += n;
        }
        return 0;
    }

    /** Reads {@code [from, from + len)} of the remote list to the local address {@code to}; 0 or an errno. */
    private int readNative(int pid, long[] addrs, long[] lens, int count, long from, long to, long len) {
        long done = 0;
        while (done < len) {
            int n = remoteRange(addrs, lens, count, from + done, len - done);
            if (n == 0) {
                return Errno.EINVAL; // the range runs past the message's iovecs
            }
            local.putLong(IovecDescriptor.BASE, to + done);
            local.putLong(IovecDescriptor.LEN, len - done);
            long r = CmaNative.process_vm_readv(pid, localAddress, 1, remoteAddress, n, 0);
            if (r < 0) {
                return errno();
            }
            if (r == 0) {
                return Errno.EIO; // no progress: never loop
            }
            done += r;
        }
        return 0;
    }

    /** Fills the remote iovec array with the part {@code [from, from + len)} of the list; the entries used. */
    private int remoteRange(long[] addrs, long[] lens, int count, long from, long len) {
        long skip = from;
        long want = len;
        int n = 0;
        for (int i = 0; i < count && want > 0; i++) {
            long l = lens[i];
            if (l <= 0) {
                continue;
            }
            if (skip >= l) {
                skip -= l;
                continue;
            }
            long take = Math.min(l - skip, want);
            int o = n * IovecDescriptor.SIZE;
            remote.putLong(o + IovecDescriptor.BASE, addrs[i] + skip);
            remote.putLong(o + IovecDescriptor.LEN, take);
            n++;
            want -= take;
            skip = 0;
        }
        return want == 0 ? n : 0;
    }

    private static int errno() {
        int e = CmaNative.lastError();
        return e > 0 ? e : Errno.EIO;
    }
}
