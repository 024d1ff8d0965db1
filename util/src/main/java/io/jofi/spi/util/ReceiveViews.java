package io.jofi.spi.util;

import java.nio.ByteBuffer;

/**
 * The views ({@code duplicate()}s) a receive queue's scattering reads go through, kept by the
 * posted buffer's identity, so that a buffer posted again finds its view whichever pooled
 * {@link PostedReceive} carries it this time. A pool hands receives out as a stack, and where
 * completions and re-posts come in batches (rxm's receive buffers on a MSG connection with
 * several packets in flight) the pairs of receive and buffer keep changing: a cache per receive
 * duplicated a view for nearly every packet (128 B per three-packet message).
 *
 * <p>A view serves one receive at a time: an entry whose receive is still in use (a buffer
 * posted in two receives at once, the parts of one multi-receive buffer) is not handed to
 * another, which makes and keeps a view of its own ({@link PostedReceive#scatterViews}).
 * At most {@link #SLOTS} buffers are remembered, by their identity hash with a few probes; a
 * full neighbourhood gives a place up in turn. A remembered buffer stays reachable until its
 * place is taken (as it did in the receive's own cache). Used under the lock that guards its
 * queue.
 */
final class ReceiveViews {
    private static final int SLOTS = 128;
    private static final int PROBES = 4;

    private final ByteBuffer[] sources = new ByteBuffer[SLOTS];
    private final ByteBuffer[] views = new ByteBuffer[SLOTS];
    private final PostedReceive[] users = new PostedReceive[SLOTS];
    /** The user's {@code recycled} count when it took the view: a receive given back since has let it go. */
    private final int[] userTurns = new int[SLOTS];
    private int evict;

    /** A view of {@code buf} for {@code r}'s scattering read, or null while another receive uses the one of {@code buf}. */
    ByteBuffer viewFor(PostedReceive r, ByteBuffer buf) {
        int home = System.identityHashCode(buf) & (SLOTS - 1);
        int spare = -1;
        for (int k = 0; k < PROBES; k++) {
            int i = (home + k) & (SLOTS - 1);
            if (sources[i] == buf) {
                if (free(i, r)) {
                    users[i] = r;
                    userTurns[i] = r.recycled;
                    return views[i];
                }
                return null; // the buffer is in another receive still in use: the caller's own view
            }
            if (spare < 0 && sources[i] == null) {
                spare = i;
            }
        }
        int i = spare >= 0 ? spare : (home + (evict++ & (PROBES - 1))) & (SLOTS - 1);
        ByteBuffer v = buf.duplicate();
        sources[i] = buf;
        views[i] = v;
        users[i] = r;
        userTurns[i] = r.recycled;
        return v;
    }

    /** Whether entry {@code i} may serve {@code r}: unused, {@code r}'s own, or its user was given back since it took it. */
    private boolean free(int i, PostedReceive r) {
        PostedReceive user = users[i];
        return user == null || user == r || user.recycled != userTurns[i];
    }
}
