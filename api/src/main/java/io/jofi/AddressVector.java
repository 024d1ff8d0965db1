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
