package io.jofi.provider.shm;

import io.jofi.Errno;
import io.jofi.Fid;

/**
 * Fails what a memory fault or a corrupt own ring leaves unusable: the peers whose mapped
 * files were truncated (docs/SHM-LAYOUT.md "Bad input, faults, security"; {@link MappingFaults} explains why where a fault
 * surfaces says nothing about whose mapping it was), and this endpoint itself when its own
 * ring is corrupt or its region was truncated (docs/SHM-LAYOUT.md "Bad input, faults, security").
 *
 * <p>Runs under the endpoint's lock ({@link #onPostFault} takes it through the facade).
 */
final class ShmFaults {
    /** The endpoint: the fid of the EQ's error event, and its monitor the lock a post's fault handling takes. */
    private final Fid self;
    private final ShmOwnRing own;
    private final ShmPeers peers;
    private final ShmTransmitter transmitter;
    private final ShmReceiver receiver;
    private final ShmBindings bound;

    ShmFaults(Fid self, ShmOwnRing own, ShmPeers peers, ShmTransmitter transmitter, ShmReceiver receiver,
              ShmBindings bound) {
        this.self = self;
        this.own = own;
        this.peers = peers;
        this.transmitter = transmitter;
        this.receiver = receiver;
        this.bound = bound;
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
        if (own.failed()) {
            return;
        }
        own.markFailed();
        if (own.link() != null && own.link().truncated()) {
            MappingFaults.deliverPending(); // as in ShmPeers.failPeer: take the pending fault here
        }
        transmitter.failAwaitingAnswers(Errno.EIO);
        receiver.failOwnRing();
        if (bound.eq != null) {
            bound.eq.postError(self, self.context(), 0, Errno.EIO, 0, null, 0);
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
        if (own.link() != null && !own.failed() && own.link().truncated()) {
            failOwnRing();
            found = true;
        }
        return peers.failTruncated() | found;
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
        synchronized (self) {
            onMappingFault();
        }
        return transmitter.opsStarted() != started ? 0 : -Errno.EIO;
    }
}
