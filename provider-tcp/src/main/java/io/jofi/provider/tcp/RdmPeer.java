package io.jofi.provider.tcp;

import io.jofi.Fi;
import java.util.Arrays;

/**
 * One peer of a tcp RDM endpoint, known by its name (the listening sockaddr it announces in
 * its hello, {@code TcpRdmHelloDescriptor}): the connection to it (at most one that is not down,
 * in either direction) and its {@code fi_addr} in the endpoint's AV, cached per AV version so
 * that the data path looks nothing up (FI_SOURCE, R10). Guarded by the RDM endpoint's lock.
 */
final class RdmPeer {
    /** The peer's listening name, as its hello carries it and as an AV holds it. */
    final byte[] name;
    private final int hash;
    /** The connection in use (connecting, connected, or awaiting the peer's crossed connection), or null. */
    TcpConnection conn;
    /** Whether {@link #conn} is one this endpoint initiated (else the peer's, accepted). */
    boolean active;
    /**
     * A second connection the peer opened while {@link #conn} was established (a reconnect,
     * or the late request of crossed connects): it receives, and replaces {@link #conn} for
     * sends once that one goes down. Null when none.
     */
    TcpConnection standby;
    /** When {@link #conn} was parked by a crossed-connect reject ({@code System.nanoTime()}). */
    long parkedAt;
    private long fiAddr = Fi.FI_ADDR_NOTAVAIL;
    private int avVersion = -1;

    RdmPeer(byte[] name) {
        this.name = name.clone();
        this.hash = Arrays.hashCode(this.name);
    }

    /**
     * This peer's {@code fi_addr} in {@code av}, or {@code FI_ADDR_NOTAVAIL}: looked up again
     * only when the AV changed since the last call (an insert after an FI_SOURCE_ERR completion
     * makes the next messages report the new fi_addr).
     */
    long fiAddr(TcpAddressVector av) {
        if (av == null) {
            return Fi.FI_ADDR_NOTAVAIL;
        }
        int v = av.version();
        if (v != avVersion) {
            fiAddr = av.fiAddrOf(name);
            avVersion = v;
        }
        return fiAddr;
    }

    /** Whether {@code other} is this peer's name. */
    boolean hasName(byte[] other) {
        return Arrays.equals(name, other);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RdmPeer p && Arrays.equals(name, p.name);
    }

    /**
     * Byte-wise unsigned comparison of two names: the rule that settles crossed connects (the
     * connection initiated by the lower name is kept).
     */
    static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }
}
