package io.jofi.provider.shm;

import java.nio.ByteBuffer;

/**
 * A posted receive, pooled: up to four buffers (absolute ranges), the tag and ignore bits of
 * a tagged receive, the source filter of {@code FI_DIRECTED_RECV}, and the state of a
 * multi-receive buffer (the offset where the next message goes).
 */
final class ShmPostedReceive {
    Object context;
    boolean tagged;
    long tag;
    long ignore;
    /** FI_DIRECTED_RECV filter: the sender's fi_addr, or FI_ADDR_UNSPEC. */
    long src;
    boolean complete;
    boolean multi;
    /** Multi-receive: where the next message starts, relative to the first buffer's start. */
    int multiOffset;
    /** The buffer reported in completions ({@code buf()}) and its position at posting. */
    ByteBuffer buf;
    int bufOffset;
    final ByteBuffer[] parts = new ByteBuffer[ShmOutboundOp.MAX_PARTS];
    final int[] starts = new int[ShmOutboundOp.MAX_PARTS];
    final int[] lengths = new int[ShmOutboundOp.MAX_PARTS];
    int partCount;
    long capacity;
    /** Bytes of the current message placed so far (fragments). */
    long placed;

    void part(ByteBuffer b, int start, int len) {
        parts[partCount] = b;
        starts[partCount] = start;
        lengths[partCount] = len;
        partCount++;
        capacity += len;
    }

    /** Room for a message: for a multi-receive what is left after {@link #multiOffset}. */
    long room() {
        return capacity - multiOffset;
    }

    /**
     * Places {@code n} bytes from {@code in[at..]} at message offset {@code to} (the message
     * starts at {@link #multiOffset}); bytes beyond the room are dropped.
     *
     * @return the bytes placed
     */
    int place(long to, ByteBuffer in, int at, int n) {
        long skip = multiOffset + to;
        int done = 0;
        long roomLeft = room() - to;
        int want = (int) Math.max(0, Math.min(n, roomLeft));
        for (int i = 0; i < partCount && done < want; i++) {
            int len = lengths[i];
            if (skip >= len) {
                skip -= len;
                continue;
            }
            int take = (int) Math.min(len - skip, want - done);
            parts[i].put(starts[i] + (int) skip, in, at + done, take);
            done += take;
            skip = 0;
        }
        return done;
    }

    boolean matches(boolean isTagged, long sentTag) {
        return tagged == isTagged && (!tagged || ((tag ^ sentTag) & ~ignore) == 0);
    }

    void reset() {
        context = null;
        tagged = false;
        tag = 0;
        ignore = 0;
        src = -1;
        complete = false;
        multi = false;
        multiOffset = 0;
        buf = null;
        bufOffset = 0;
        for (int i = 0; i < ShmOutboundOp.MAX_PARTS; i++) {
            parts[i] = null;
        }
        partCount = 0;
        capacity = 0;
        placed = 0;
    }
}
