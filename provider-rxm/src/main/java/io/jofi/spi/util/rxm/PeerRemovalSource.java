package io.jofi.spi.util.rxm;

/**
 * An address vector that tells the RDM endpoints bound to it which peers {@code fi_av_remove}
 * took out, so that they close their connections to them (fi_av(3), R10): an
 * {@link RxmEndpoint} listens to the AV it is bound to when that AV offers this.
 */
public interface PeerRemovalSource {
    /** Told of the raw addresses an {@code fi_av_remove} took out. */
    interface Listener {
        /**
         * Called after a successful remove, on the remover's thread, without the AV's lock.
         *
         * @param addrs the removed entries' addresses (null elements for unknown fi_addrs), or null
         */
        void removed(byte[][] addrs);
    }

    /** Adds {@code l} (once). */
    void addRemovalListener(Listener l);

    /** Removes {@code l}. */
    void removeRemovalListener(Listener l);
}
