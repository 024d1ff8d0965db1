package io.jofi.provider.verbs;

import java.util.Arrays;

/**
 * A diagnostic trace of RDM connection management (set-up, crossed-connect decisions, state
 * changes, release), on standard error, when the system property {@code jofi.verbs.trace} is
 * {@code true}: for finding out, in the VM, how connections between two endpoints came and
 * went. Control path only; every call site tests {@link #ON} first, so that it costs nothing
 * when off.
 */
final class RdmTrace {
    /** Whether tracing is on ({@code -Djofi.verbs.trace=true}). */
    static final boolean ON = Boolean.getBoolean("jofi.verbs.trace");

    private RdmTrace() {
    }

    /** One line: the time, the endpoint's name (its port), the connection, what happened. */
    static void log(byte[] self, RdmConnection c, String what) {
        StringBuilder b = new StringBuilder(160);
        b.append("jofi-rdm ").append(System.nanoTime() / 1000).append("us ep=").append(port(self));
        if (c != null) {
            b.append(" conn@").append(Integer.toHexString(System.identityHashCode(c)))
                    .append(" peer=").append(port(c.peerName))
                    .append(c.active ? " active" : " passive")
                    .append(c.receiveOnly ? " standby" : "")
                    .append(" state=").append(c.state)
                    .append(" qp=").append(c.qpNum)
                    .append(" out=").append(c.outstanding)
                    .append(" wait=").append(c.waitCount);
        }
        System.err.println(b.append(": ").append(what));
    }

    /** A sockaddr's port (bytes 2–3, network order), which tells the endpoints of one host apart. */
    private static String port(byte[] sockaddr) {
        if (sockaddr == null || sockaddr.length < 4) {
            return String.valueOf(Arrays.toString(sockaddr));
        }
        return String.valueOf(((sockaddr[2] & 0xFF) << 8) | (sockaddr[3] & 0xFF));
    }
}
