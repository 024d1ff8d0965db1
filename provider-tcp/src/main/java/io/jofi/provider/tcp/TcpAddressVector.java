package io.jofi.provider.tcp;

import io.jofi.AddrFormat;
import io.jofi.AvAttr;
import io.jofi.FabricException;
import io.jofi.spi.util.AddressResolver;
import io.jofi.spi.util.UtilAddressVector;

/**
 * The tcp provider's address vector: the util layer's (whose removals the RDM endpoints bound to
 * it follow), plus a {@link #version()} that changes after every insert and remove, so that a
 * connection caches its peer's {@code fi_addr} (reverse lookup, FI_SOURCE) and looks it up again
 * only when the AV changed — an insert after an {@code FI_SOURCE_ERR} completion makes the next
 * messages of that peer report the new {@code fi_addr}. Reading it allocates nothing (fi_av(3),
 * R10).
 */
final class TcpAddressVector extends UtilAddressVector {
    private volatile int version;

    TcpAddressVector(AvAttr attr, Object context, AddrFormat format, AddressResolver resolver) throws FabricException {
        super(attr, context, format, resolver);
    }

    /** Changes after every insert or remove that changed something. */
    int version() {
        return version;
    }

    /** {@code fi_av_insert} as the util layer's; bumps {@link #version()} (see the class comment). */
    @Override
    public int insert(byte[][] addrs, long[] fiAddrs, long flags, Object context) {
        int rc = super.insert(addrs, fiAddrs, flags, context);
        bump();
        return rc;
    }

    /** {@code fi_av_remove} as the util layer's (which tells the RDM endpoints); bumps {@link #version()}. */
    @Override
    public int remove(long[] fiAddrs, long flags) {
        int rc = super.remove(fiAddrs, flags);
        if (rc == 0) {
            bump();
        }
        return rc;
    }

    private synchronized void bump() {
        version++;
    }
}
