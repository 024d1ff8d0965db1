package io.jofi.spi.util;

import io.jofi.Fi;

/**
 * The counters bound to an endpoint, by the operation each counts (fi_cntr(3)): one immutable
 * snapshot taken at each bind, so that finding an operation's counter on the data path is a few
 * branches on final fields and no lookup in {@link EndpointBindings}.
 */
final class BoundCounters {
    /** Nothing bound yet. */
    static final BoundCounters NONE = new BoundCounters(null, null, null, null, null, null);

    private final UtilCounter send;
    private final UtilCounter recv;
    private final UtilCounter read;
    private final UtilCounter write;
    private final UtilCounter remoteRead;
    private final UtilCounter remoteWrite;

    private BoundCounters(UtilCounter send, UtilCounter recv, UtilCounter read, UtilCounter write,
                          UtilCounter remoteRead, UtilCounter remoteWrite) {
        this.send = send;
        this.recv = recv;
        this.read = read;
        this.write = write;
        this.remoteRead = remoteRead;
        this.remoteWrite = remoteWrite;
    }

    /** The counters {@code bindings} hold now. */
    static BoundCounters of(EndpointBindings bindings) {
        return new BoundCounters(bindings.counter(Fi.FI_SEND), bindings.counter(Fi.FI_RECV),
                bindings.counter(Fi.FI_READ), bindings.counter(Fi.FI_WRITE), bindings.counter(Fi.FI_REMOTE_READ),
                bindings.counter(Fi.FI_REMOTE_WRITE));
    }

    /** The counter an operation with these completion flags counts on ({@link UtilEndpoint#counterFor}), or null. */
    UtilCounter forCompletion(long completionFlags) {
        if ((completionFlags & Fi.FI_RECV) != 0) {
            return recv;
        }
        if ((completionFlags & Fi.FI_SEND) != 0) {
            return send;
        }
        if ((completionFlags & Fi.FI_REMOTE_WRITE) != 0) {
            return remoteWrite;
        }
        if ((completionFlags & Fi.FI_REMOTE_READ) != 0) {
            return remoteRead;
        }
        if ((completionFlags & Fi.FI_READ) != 0) {
            return read;
        }
        return (completionFlags & Fi.FI_WRITE) != 0 ? write : null;
    }
}
