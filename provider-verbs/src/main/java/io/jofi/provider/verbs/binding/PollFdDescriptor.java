package io.jofi.provider.verbs.binding;

/**
 * Layout of {@code struct pollfd} ({@code <poll.h>}): the descriptors the progress threads
 * sleep on (a completion channel, an rdma_cm event channel).
 *
 * <pre>
 * offset width field
 *      0     4 fd
 *      4     2 events
 *      6     2 revents
 *   size    8</pre>
 */
public final class PollFdDescriptor {
    /** {@code sizeof(struct pollfd)}. */
    public static final int SIZE = 8;
    /** {@code offsetof(struct pollfd, fd)}, 4 bytes. */
    public static final int FD = 0;
    /** {@code offsetof(struct pollfd, events)}, 2 bytes. */
    public static final int EVENTS = 4;
    /** {@code offsetof(struct pollfd, revents)}, 2 bytes. */
    public static final int REVENTS = 6;

    /** What the ABI check compares. */
    public static final StructLayout LAYOUT = StructLayout.of("struct pollfd", SIZE)
            .field("fd", FD, 4)
            .field("events", EVENTS, 2)
            .field("revents", REVENTS, 2);

    private PollFdDescriptor() {
    }
}
