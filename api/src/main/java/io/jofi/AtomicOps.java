package io.jofi;

import java.nio.ByteBuffer;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Atomic operations on 64-bit integers (fi_atomic(3)): {@code Fi.FI_SUM}, {@code FI_CSWAP},
 * {@code FI_ATOMIC_READ}, {@code FI_ATOMIC_WRITE}, ... Fetching forms write the value before
 * the operation into {@code result} at its position.
 */
@ProviderType
public interface AtomicOps {
    int atomic(long operand, long destAddr, long addr, long key, int op, Object context);

    int fetchAtomic(long operand, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                    int op, Object context);

    int compareAtomic(long compare, long swap, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr,
                      long key, Object context);
}
