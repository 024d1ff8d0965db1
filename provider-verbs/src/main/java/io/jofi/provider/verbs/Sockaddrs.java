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
