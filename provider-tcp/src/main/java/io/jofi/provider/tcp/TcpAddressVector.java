package io.jofi.provider.tcp;

import io.jofi.AddrFormat;
import io.jofi.AvAttr;
import io.jofi.FabricException;
import io.jofi.spi.util.AddressResolver;
import io.jofi.spi.util.UtilAddressVector;
import io.jofi.spi.util.rxm.PeerRemovalSource;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The tcp provider's address vector: the util layer's, plus what RDM endpoints need to follow
 * it (fi_av(3), R10).
 *
 * <ul>
 * <li>A {@link #version()} that changes after every insert and remove, so that a connection
 *     caches its peer's {@code fi_addr} (reverse lookup, FI_SOURCE) and looks it up again only
 *     when the AV changed — an insert after an {@code FI_SOURCE_ERR} completion makes the next
 *     messages of that peer report the new {@code fi_addr}. Reading it allocates nothing.</li>
 * <li>Removal listeners: {@code fi_av_remove} of a peer closes the connection of every RDM
 *     endpoint bound to this AV to that peer.</li>
 * </ul>
 */
final class TcpAddressVector extends UtilAddressVector implements PeerRemovalSource {
    private final CopyOnWriteArrayList<PeerRemovalSource.Listener> listeners = new CopyOnWriteArrayList<>();
    private volatile int version;

    TcpAddressVector(AvAttr attr, Object context, AddrFormat format, AddressResolver resolver) throws FabricException {
        super(attr, context, format, resolver);
    }

    /** Changes after every insert or remove that changed something. */
    int version() {
        return version;
    }

    @Override
    public void addRemovalListener(PeerRemovalSource.Listener l) {
        listeners.addIfAbsent(l);
    }

    @Override
    public void removeRemovalListener(PeerRemovalSource.Listener l) {
        listeners.remove(l);
    }

    /** {@code fi_av_insert} as the util layer's; bumps {@link #version()} (see the class comment). */
    @Override
    public int insert(byte[][] addrs, long[] fiAddrs, long flags, Object context) {
        int rc = super.insert(addrs, fiAddrs, flags, context);
        bump();
        return rc;
    }

    /**
     * {@code fi_av_remove} as the util layer's (all or nothing); on success the RDM endpoints
     * bound to this AV close their connections to the removed peers.
     */
    @Override
    public int remove(long[] fiAddrs, long flags) {
        byte[][] before = null;
        if (fiAddrs != null) {
            before = new byte[fiAddrs.length][];
            for (int i = 0; i < fiAddrs.length; i++) {
                before[i] = addressOf(fiAddrs[i]);
            }
        }
        int rc = super.remove(fiAddrs, flags);
        if (rc == 0) {
            bump();
            for (PeerRemovalSource.Listener l : listeners) {
                l.removed(before);
            }
        }
        return rc;
    }

    private synchronized void bump() {
        version++;
    }
}
