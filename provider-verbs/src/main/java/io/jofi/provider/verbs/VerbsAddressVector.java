package io.jofi.provider.verbs;

import io.jofi.AddrFormat;
import io.jofi.AvAttr;
import io.jofi.FabricException;
import io.jofi.spi.util.AddressResolver;
import io.jofi.spi.util.UtilAddressVector;
import io.jofi.spi.util.rxm.PeerRemovalSource;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The verbs domain's address vector: the util layer's, which also tells the RDM endpoints
 * bound to it which peers an {@code fi_av_remove} took out, so that they end their connections
 * to them (fi_av(3): a removed address may no longer be used; the operations pending towards it
 * complete with an error, as on tcp RDM endpoints).
 */
final class VerbsAddressVector extends UtilAddressVector implements PeerRemovalSource {
    private final CopyOnWriteArrayList<PeerRemovalSource.Listener> listeners = new CopyOnWriteArrayList<>();

    VerbsAddressVector(AvAttr attr, Object context, AddrFormat format, AddressResolver resolver) throws FabricException {
        super(attr, context, format, resolver);
    }

    @Override
    public void addRemovalListener(PeerRemovalSource.Listener l) {
        listeners.addIfAbsent(l);
    }

    @Override
    public void removeRemovalListener(PeerRemovalSource.Listener l) {
        listeners.remove(l);
    }

    /**
     * {@code fi_av_remove} as the util layer's (all or nothing); when it succeeded, the bound
     * RDM endpoints hear of the removed addresses (looked up before, as they are gone after).
     */
    @Override
    public int remove(long[] fiAddrs, long flags) {
        byte[][] removed = null;
        if (fiAddrs != null && !listeners.isEmpty()) {
            removed = new byte[fiAddrs.length][];
            for (int i = 0; i < fiAddrs.length; i++) {
                removed[i] = addressOf(fiAddrs[i]);
            }
        }
        int rc = super.remove(fiAddrs, flags);
        if (rc == 0 && removed != null) {
            for (PeerRemovalSource.Listener l : listeners) {
                l.removed(removed);
            }
        }
        return rc;
    }
}
