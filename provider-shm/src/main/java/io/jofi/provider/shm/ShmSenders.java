package io.jofi.provider.shm;

/**
 * What the ring reader asks of the peer table: who sent a record (by the sender words of its
 * header) and to fail a sender whose record makes no sense. {@link ShmPeers} implements it; the
 * reader sees only this door.
 */
interface ShmSenders {
    /** The peer the sender words name (a new entry on first sight), or null for words that name no sender. */
    Peer peerOf(long senderPid, long senderSeq);

    /** {@code p} failed with {@code err}: everything pending towards it ends with that error. */
    void failPeer(Peer p, int err);
}
