package io.jofi.provider.shm;

import io.jofi.Errno;

/**
 * Fails what a memory fault or a corrupt own ring leaves unusable: the peers whose mapped
 * files were truncated (docs/SHM-LAYOUT.md "Bad input, faults, security"; {@link MappingFaults} explains why where a fault
 * surfaces says nothing about whose mapping it was), and this endpoint itself when its own
 * ring is corrupt or its region was truncated (docs/SHM-LAYOUT.md "Bad input, faults, security").
 *
 * <p>Runs under the endpoint's lock ({@link #onPostFault} takes it through the facade).
 */
final class ShmFaults {
    private final ShmEndpoint ep;

    ShmFaults(ShmEndpoint ep) {
        this.ep = ep;
    }

    /**
     * Our own ring is corrupt (someone scribbled over our region; who cannot be told) or its
     * mapping faulted: nothing can reach this endpoint any more, so it is failed: every
     * operation waiting for an answer and every posted receive completes with {@code EIO},
     * later receives are refused with {@code -EIO} ({@link ShmReceiver#post}), and a bound EQ
     * gets one error event ({@code EIO}, fid = this endpoint). Sends into peers' rings still
     * work. Progress never reads the ring again (no spin: the ring lets its consumer sleep
     * once it reported the failure). Idempotent.
     */
    void failOwnRing() {
        if (ep.ringFailed) {
            return;
        }
        ep.ringFailed = true;
        if (ep.own != null && ep.own.truncated()) {
            MappingFaults.deliverPending(); // as in ShmPeers.failPeer: take the pending fault here
        }
        ep.transmitter.failAwaitingAnswers(Errno.EIO);
        ep.receiver.failOwnRing();
        if (ep.eq != null) {
            ep.eq.postError(ep, ep.context(), 0, Errno.EIO, 0, null, 0);
        }
    }

    /**
     * A memory fault surfaced: every peer whose mapped file was truncated is failed with
     * {@code EIO} (its mappings are dropped: never touched again), and this endpoint is failed
     * ({@link #failOwnRing}) when its own region was.
     *
     * @return whether some mapping of this endpoint was found truncated
     */
    boolean onMappingFault() {
        boolean found = false;
        if (ep.own != null && !ep.ringFailed && ep.own.truncated()) {
            failOwnRing();
            found = true;
        }
        return ep.peers.failTruncated() | found;
    }

    /**
     * A memory fault came out of a post (raised inside it by a {@link MappingFaults#check}, or
     * delivered there late): the truncated peers are failed ({@link #onMappingFault}), which
     * completes the op with {@code EIO} when it was started ({@code opsStarted} moved past
     * {@code started}); one not started yet is refused with {@code -EIO}. Called outside the
     * lock; takes it.
     */
    int onPostFault(InternalError e, long started) {
        if (!MappingFaults.isFault(e)) {
            throw e;
        }
        ep.onMappingFault();
        return ep.transmitter.opsStarted != started ? 0 : -Errno.EIO;
    }
}
