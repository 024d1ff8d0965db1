package io.jofi.spi.util;

import io.jofi.Errno;
import io.jofi.FidClass;
import io.jofi.MemoryRegion;
import java.nio.ByteBuffer;

/**
 * A registered memory region ({@code fi_mr(3)}), made by {@link MemoryRegistry#register}.
 *
 * <p><b>What is registered.</b> The caller's {@code [position, limit)} at registration time,
 * kept as a slice: index 0 of {@link #buffer()} is the caller's position then, and the
 * caller's own position and limit are never touched (docs/API.md "Buffers"). Providers address
 * the slice with absolute indexes only, so nobody depends on its position.
 *
 * <p><b>How peers address it.</b> docs/API.md: a peer is sent {@code (address(), key())} and
 * targets {@code addr = address() + offset} (fi_rma(3)). The registration {@code offset}
 * (fi_mr(3) {@code offset}, used when {@code FI_MR_VIRT_ADDR} is off) is the address the
 * region's first byte has, so byte {@code i} of the region is addressed as
 * {@code address() + offset() + i}; with the usual {@code offset() == 0} that is exactly
 * docs/API.md's {@code address() + i}. Addresses are unsigned 64-bit numbers, as C's
 * {@code uint64_t}, and every check here is overflow-safe.
 *
 * <p><b>Threads.</b> All fields are final, so a region found through the registry's
 * lock-free lookup is fully visible. {@link #check} and {@link #indexOf} allocate nothing.
 */
public final class UtilMemoryRegion extends AbstractFid implements MemoryRegion {
    private final MemoryRegistry registry;
    private final ByteBuffer buffer;
    private final long access;
    private final long offset;
    private final long key;
    private final long address;
    /** address + offset: the unsigned address of byte 0; computed once, checked for wrap-around at registration. */
    private final long base;
    private final int length;

    UtilMemoryRegion(MemoryRegistry registry, ByteBuffer slice, long access, long offset, long key,
                     long address, Object context) {
        super(FidClass.MR, context);
        this.registry = registry;
        this.buffer = slice;
        this.access = access;
        this.offset = offset;
        this.key = key;
        this.address = address;
        this.base = address + offset;
        this.length = slice.capacity();
    }

    /** {@code fi_mr_key}: the remote key peers send with RMA and atomic operations. */
    @Override
    public long key() {
        return key;
    }

    /** The region's virtual address where the provider's hardware needs one, else 0 (docs/API.md). */
    @Override
    public long address() {
        return address;
    }

    /** {@code fi_mr_desc}: the local descriptor, which is the region itself. */
    @Override
    public Object desc() {
        return this;
    }

    /**
     * The registered bytes: a slice of the caller's buffer whose index 0 was the caller's
     * position at registration and whose capacity is the registered length. Always the same
     * object (no allocation); use absolute indexes only.
     */
    @Override
    public ByteBuffer buffer() {
        return buffer;
    }

    /** The access bits the region was registered with ({@code FI_SEND | FI_RECV | ... | FI_REMOTE_WRITE}). */
    public long access() {
        return access;
    }

    /** The registration offset: the address byte 0 has beyond {@link #address()} (see the class comment). */
    public long offset() {
        return offset;
    }

    /** The number of registered bytes. */
    public int length() {
        return length;
    }

    /**
     * The target-side check of an incoming RMA or atomic access of {@code len} bytes at
     * {@code addr} (= {@code address() + offset() + i}, see the class comment). Allocation-free,
     * overflow-safe for every {@code addr} and {@code len}.
     *
     * @param access the bits the operation needs: {@code FI_REMOTE_READ} for a peer's read,
     *               {@code FI_REMOTE_WRITE} for a peer's write, both for fetching atomics
     * @return 0; {@code -EACCES} when the region lacks one of {@code access}; {@code -EINVAL}
     *         when {@code [addr, addr + len)} is not inside the region or {@code len < 0};
     *         {@code -ENODEV}/{@code -EBADF} when the region departed or was closed
     */
    public int check(long addr, long len, long access) {
        int rc = dataPathCheck();
        if (rc != 0) {
            return rc;
        }
        if ((this.access & access) != access) {
            return -Errno.EACCES;
        }
        if (len < 0 || Long.compareUnsigned(addr, base) < 0) {
            return -Errno.EINVAL;
        }
        long rel = addr - base; // no wrap: addr >= base, both unsigned
        if (Long.compareUnsigned(rel, length) > 0 || len > length - rel) {
            return -Errno.EINVAL;
        }
        return 0;
    }

    /**
     * The absolute index in {@link #buffer()} of the byte addressed {@code addr}. Only
     * meaningful after {@link #check} accepted {@code addr}: the result is then in
     * {@code [0, length()]}.
     */
    public int indexOf(long addr) {
        return (int) (addr - base);
    }

    @Override
    protected void onClose() {
        registry.unregister(this);
    }

    /** A departed region no longer answers target lookups (R15). */
    @Override
    protected void onDeparture() {
        registry.unregister(this);
    }

    @Override
    protected String describe() {
        return "memory region (key " + Long.toUnsignedString(key) + ")";
    }
}
