package io.jofi.provider.shm.cma;

/**
 * Layout of {@code struct iovec} ({@code <sys/uio.h>}, x86-64 and aarch64 Linux): one
 * (address, length) element of the local and remote lists {@code process_vm_readv(2)} takes.
 *
 * <pre>
 * offset width field
 *      0     8 iov_base
 *      8     8 iov_len
 *   size   16</pre>
 */
public final class IovecDescriptor {
    /** {@code sizeof(struct iovec)}. */
    public static final int SIZE = 16;
    /** {@code offsetof(struct iovec, iov_base)}, 8 bytes. */
    public static final int BASE = 0;
    /** {@code offsetof(struct iovec, iov_len)}, 8 bytes. */
    public static final int LEN = 8;

    private IovecDescriptor() {
    }
}
