package io.jofi.provider.verbs;

import io.jofi.Errno;
import io.jofi.Fi;

/**
 * Which typed atomics an MSG endpoint carries as the device's own 64-bit operations, as
 * libfabric's verbs provider answers {@code fi_query_atomic}: one element of {@code FI_INT64}
 * or {@code FI_UINT64}; {@code FI_ATOMIC_WRITE} and {@code FI_SUM} ({@code fi_atomic}),
 * {@code FI_ATOMIC_READ}, {@code FI_SUM} and {@code FI_ATOMIC_WRITE} fetched
 * ({@code fi_fetch_atomic}: read as a fetch-and-add of 0, write as a swap), {@code FI_CSWAP}
 * ({@code fi_compare_atomic}). Nothing on a device without atomics (iWARP, siw). The floating
 * types libfabric also admits are left out: the device's fetch-and-add is an integer sum.
 */
final class VerbsNativeAtomics {
    private VerbsNativeAtomics() {
    }

    /**
     * The {@code queryAtomic} answer: 1 for a pair the device carries, else
     * {@code -EOPNOTSUPP}.
     *
     * @param deviceAtomics whether the device offers atomics at all
     * @param kind          0, {@code FI_FETCH_ATOMIC} or {@code FI_COMPARE_ATOMIC}
     */
    static int count(boolean deviceAtomics, int datatype, int op, long kind) {
        if (!deviceAtomics || datatype != Fi.FI_INT64 && datatype != Fi.FI_UINT64) {
            return -Errno.EOPNOTSUPP;
        }
        boolean carried;
        if (kind == Fi.FI_COMPARE_ATOMIC) {
            carried = op == Fi.FI_CSWAP;
        } else if (kind == Fi.FI_FETCH_ATOMIC) {
            carried = op == Fi.FI_ATOMIC_READ || op == Fi.FI_SUM || op == Fi.FI_ATOMIC_WRITE;
        } else {
            carried = kind == 0 && (op == Fi.FI_SUM || op == Fi.FI_ATOMIC_WRITE);
        }
        return carried ? 1 : -Errno.EOPNOTSUPP;
    }
}
