package io.jofi.spi.util;

/**
 * An address vector that tells the layers bound to it which peers {@code fi_av_remove} took
 * out, so that they end what they hold towards them (fi_av(3), R10): the rxm layer's RDM
 * endpoint closes its connections to them. Every {@link UtilAddressVector} is one.
 */
public interface PeerRemovalSource {
    /** Told of the raw addresses an {@code fi_av_remove} took out. */
    interface Listener {
        /**
         * Called after a successful remove, on the remover's thread, without the AV's lock.
         *
         * @param addrs the removed entries' addresses, in the order of the remove's fi_addrs
         */
        void removed(byte[][] addrs);
    }

    /** Adds {@code l} (once). */
    void addRemovalListener(Listener l);

    /** Removes {@code l}. */
    void removeRemovalListener(Listener l);
}
