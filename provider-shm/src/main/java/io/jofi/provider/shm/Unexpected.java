package io.jofi.provider.shm;

import java.nio.ByteBuffer;

/**
 * A message that arrived before a receive matched it: its bytes are copied into a heap
 * buffer of its length (bounded in total by the endpoint's unexpected-bytes setting), and it
 * remembers what its sender asked for (an acknowledgement once matched) and whether
 * {@code FI_PEEK | FI_CLAIM} set it aside for a context.
 */
final class Unexpected {
    final Peer sender;
    final boolean tagged;
    final long tag;
    final boolean hasData;
    final long data;
    final ByteBuffer bytes;
    final long token;
    final int wireFlags;
    /** Bytes arrived so far (fragments). */
    int arrived;
    /** Set by FI_PEEK | FI_CLAIM: only FI_CLAIM with this context takes it. */
    Object claimedBy;
    /** A receive waiting for the rest of the message's fragments. */
    RxOp waiting;

    Unexpected(Peer sender, boolean tagged, long tag, boolean hasData, long data, int length, long token,
               int wireFlags) {
        this.sender = sender;
        this.tagged = tagged;
        this.tag = tag;
        this.hasData = hasData;
        this.data = data;
        this.bytes = ByteBuffer.allocate(length);
        this.token = token;
        this.wireFlags = wireFlags;
    }

    boolean isWhole() {
        return arrived == bytes.capacity();
    }
}
