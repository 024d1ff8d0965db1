package io.jofi.provider.verbs;

import com.sun.jna.Pointer;
import io.jofi.provider.verbs.binding.NativeBlock;

/** Moves Linux sockaddr bytes ({@code io.jofi.Addresses} layout) between Java and native memory. */
final class Sockaddrs {
    /** Bytes of a sockaddr_in. */
    static final int IN = 16;
    /** Bytes of a sockaddr_in6 (the largest rdma_cm takes here). */
    static final int IN6 = 28;

    private Sockaddrs() {
    }

    /** Copies {@code sa} into {@code out} (zero-filled to 128 bytes). */
    static void put(byte[] sa, NativeBlock out) {
        out.clear();
        for (int i = 0; i < sa.length && i < out.size(); i++) {
            out.view().put(i, sa[i]);
        }
    }

    /**
     * Whether {@code sa} (Linux sockaddr bytes, family in host order at 0) is a loopback
     * address: IPv4 127.0.0.0/8, IPv6 {@code ::1} or an IPv4-mapped 127/8. rdma_cm reaches no
     * RoCE or iWARP device through loopback (rxe and siw sit on an Ethernet interface, not on
     * {@code lo}), so such a peer or source is refused up front rather than left to a connect
     * request that nobody receives.
     */
    static boolean isLoopback(byte[] sa) {
        if (sa == null || sa.length < IN) {
            return false;
        }
        int family = (sa[0] & 0xFF) | (sa[1] & 0xFF) << 8;
        if (family == 2) {
            return (sa[4] & 0xFF) == 127;
        }
        if (family == 10 && sa.length >= IN6) {
            boolean zeros = true;
            for (int i = 8; i < 18; i++) {
                zeros &= sa[i] == 0;
            }
            if (zeros && sa[18] == 0 && sa[19] == 0) {
                for (int i = 20; i < 23; i++) {
                    if (sa[i] != 0) {
                        return false;
                    }
                }
                return sa[23] == 1; // ::1
            }
            return zeros && sa[18] == (byte) 0xFF && sa[19] == (byte) 0xFF && (sa[20] & 0xFF) == 127;
        }
        return false;
    }

    /** The sockaddr at {@code addr}: 16 bytes for AF_INET, 28 for AF_INET6, {@code null} for AF_UNSPEC. */
    static byte[] get(long addr) {
        Pointer p = new Pointer(addr);
        int family = p.getShort(0) & 0xFFFF;
        if (family == 2) {
            return p.getByteArray(0, IN);
        }
        if (family == 10) {
            return p.getByteArray(0, IN6);
        }
        return null;
    }
}
