package io.jofi;

import java.nio.ByteBuffer;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Atomic operations (fi_atomic(3)) on a peer's registered memory: the buffer forms carry a
 * datatype ({@code Fi.FI_INT8} … {@code Fi.FI_DOUBLE_COMPLEX}) and a count of elements, as
 * {@code fi_atomic}, {@code fi_fetch_atomic} and {@code fi_compare_atomic} do; the long forms
 * are {@code FI_INT64} shorthands for one element. Elements are in the host's byte order,
 * whatever a buffer's own order; each buffer's elements start at its position. Fetching and
 * compare forms write the elements before the operation into {@code result}.
 *
 * <p>Which (datatype, op) pairs a provider serves, and how many elements at once, is
 * {@link Domain#queryAtomic}'s answer; a call with a pair it refuses returns
 * {@code -EOPNOTSUPP} and posts nothing, a count of 0 or above the bound {@code -EINVAL}.
 * The compare ops ({@code FI_CSWAP} … {@code FI_MSWAP}) go through {@code compareAtomic} only.
 * The buffer forms' defaults serve nothing ({@code -EOPNOTSUPP}), as {@link Domain#queryAtomic}'s
 * default answers.
 */
@ProviderType
public interface AtomicOps {
    /** {@code fi_atomic} of one {@code FI_INT64}: {@code operand} applied with {@code op}. */
    int atomic(long operand, long destAddr, long addr, long key, int op, Object context);

    /** {@code fi_fetch_atomic} of one {@code FI_INT64}; the old value into {@code result}. */
    int fetchAtomic(long operand, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr, long key,
                    int op, Object context);

    /** {@code fi_compare_atomic} of one {@code FI_INT64} with {@code FI_CSWAP}. */
    int compareAtomic(long compare, long swap, ByteBuffer result, MemoryRegion resultDesc, long destAddr, long addr,
                      long key, Object context);

    /**
     * {@code fi_atomic}: {@code count} elements of {@code datatype} from {@code buf} applied
     * with {@code op} to the target at {@code addr} ({@code buf} may be null for no operand).
     *
     * @return 0 or a negative errno ({@code -EOPNOTSUPP} for a pair not served)
     */
    default int atomic(ByteBuffer buf, int count, MemoryRegion desc, long destAddr, long addr, long key, int datatype,
                       int op, Object context) {
        return -Errno.EOPNOTSUPP;
    }

    /** {@code fi_fetch_atomic}: as the buffer form of {@code atomic}, the old elements into {@code result}. */
    default int fetchAtomic(ByteBuffer buf, int count, MemoryRegion desc, ByteBuffer result, MemoryRegion resultDesc,
                            long destAddr, long addr, long key, int datatype, int op, Object context) {
        return -Errno.EOPNOTSUPP;
    }

    /**
     * {@code fi_compare_atomic}: element {@code i} of the target is compared with element
     * {@code i} of {@code compare} and, as {@code op} (FI_CSWAP … FI_MSWAP) says, replaced by
     * element {@code i} of {@code buf}; the old elements go into {@code result}.
     */
    default int compareAtomic(ByteBuffer buf, int count, MemoryRegion desc, ByteBuffer compare,
                              MemoryRegion compareDesc, ByteBuffer result, MemoryRegion resultDesc, long destAddr,
                              long addr, long key, int datatype, int op, Object context) {
        return -Errno.EOPNOTSUPP;
    }
}
