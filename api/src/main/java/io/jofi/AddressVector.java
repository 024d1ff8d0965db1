package io.jofi;

import org.osgi.annotation.versioning.ProviderType;

/**
 * An address vector ({@code fi_av}): maps peer addresses to compact {@code fi_addr_t} values.
 * With {@code AvType.TABLE} those are indexes 0, 1, 2, ... in insert order; with
 * {@code AvType.MAP} they are opaque. An AV opened with {@code Fi.FI_EVENT} and bound to an
 * EQ completes inserts asynchronously with an {@code FI_AV_COMPLETE} event whose
 * {@code data()} is the number inserted; failed entries are reported as error events with
 * {@code data()} = their index.
 */
@ProviderType
public interface AddressVector extends Fid {
    /**
     * {@code fi_av_insert}.
     *
     * @param fiAddrs receives the {@code fi_addr_t} of each address ({@code FI_ADDR_NOTAVAIL}
     *                for a failed one); may be {@code null}
     * @return the number inserted (synchronous), 0 (asynchronous: see the EQ), or a negative errno
     */
    int insert(byte[][] addrs, long[] fiAddrs, long flags, Object context);

    /**
     * Inserts one peer's address and returns its {@code fi_addr_t}: the one-peer form of
     * {@link #insert(byte[][], long[], long, Object)}, synchronous ({@code Fi.FI_SYNC_ERR}).
     *
     * @throws FabricException the errno the address failed with ({@code EINVAL} for an address
     *         of the wrong format, ...); {@code EINVAL} on an AV opened with {@code Fi.FI_EVENT},
     *         whose inserts complete on its EQ (use the array form there); {@code EBADF} when closed
     */
    default long insert(byte[] addr) throws FabricException {
        long[] fiAddr = {Fi.FI_ADDR_NOTAVAIL};
        int[] error = {0};
        int rc = insert(new byte[][] {addr}, fiAddr, Fi.FI_SYNC_ERR, error);
        if (rc < 0) {
            throw new FabricException(-rc, "cannot insert one address" + (rc == -Errno.EINVAL
                    ? " (an AV opened with FI_EVENT takes the array form of insert)" : ""));
        }
        if (rc != 1 || fiAddr[0] == Fi.FI_ADDR_NOTAVAIL) {
            int errno = error[0] != 0 ? error[0] : Errno.EADDRNOTAVAIL;
            throw new FabricException(errno, "the address vector refused "
                    + (addr == null ? "a null address" : straddr(addr)));
        }
        return fiAddr[0];
    }

    /** {@code fi_av_insertsvc}: resolves {@code node}/{@code service} and inserts the result. */
    int insertSvc(String node, String service, long[] fiAddr, long flags, Object context);

    /** {@code fi_av_remove}; 0 or a negative errno ({@code -ENOENT} for an unknown address). */
    int remove(long[] fiAddrs, long flags);

    /** {@code fi_av_lookup}: the address, or {@code null} when {@code fiAddr} is not in the AV. */
    byte[] lookup(long fiAddr);

    /** {@code fi_av_straddr}: the address formatted for people. */
    String straddr(byte[] addr);

    /** Binds an EQ for asynchronous inserts ({@code FI_EVENT}). */
    void bind(EventQueue eq, long flags) throws FabricException;
}
