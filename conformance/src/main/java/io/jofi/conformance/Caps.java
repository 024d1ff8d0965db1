package io.jofi.conformance;

import io.jofi.Fi;

/**
 * Names of capability bits, so that a skip reason says which capability a provider lacks
 * ("provider tcp lacks FI_RMA") rather than printing a number.
 */
public final class Caps {
    private static final long[] BITS = {
        Fi.FI_MSG, Fi.FI_RMA, Fi.FI_TAGGED, Fi.FI_ATOMIC, Fi.FI_MULTICAST, Fi.FI_COLLECTIVE,
        Fi.FI_READ, Fi.FI_WRITE, Fi.FI_RECV, Fi.FI_SEND, Fi.FI_REMOTE_READ, Fi.FI_REMOTE_WRITE,
        Fi.FI_MULTI_RECV, Fi.FI_REMOTE_CQ_DATA, Fi.FI_TRIGGER, Fi.FI_FENCE, Fi.FI_HMEM,
        Fi.FI_RMA_PMEM, Fi.FI_SOURCE_ERR, Fi.FI_LOCAL_COMM, Fi.FI_REMOTE_COMM, Fi.FI_SHARED_AV,
        Fi.FI_RMA_EVENT, Fi.FI_SOURCE, Fi.FI_NAMED_RX_CTX, Fi.FI_DIRECTED_RECV,
    };
    private static final String[] NAMES = {
        "FI_MSG", "FI_RMA", "FI_TAGGED", "FI_ATOMIC", "FI_MULTICAST", "FI_COLLECTIVE",
        "FI_READ", "FI_WRITE", "FI_RECV", "FI_SEND", "FI_REMOTE_READ", "FI_REMOTE_WRITE",
        "FI_MULTI_RECV", "FI_REMOTE_CQ_DATA", "FI_TRIGGER", "FI_FENCE", "FI_HMEM",
        "FI_RMA_PMEM", "FI_SOURCE_ERR", "FI_LOCAL_COMM", "FI_REMOTE_COMM", "FI_SHARED_AV",
        "FI_RMA_EVENT", "FI_SOURCE", "FI_NAMED_RX_CTX", "FI_DIRECTED_RECV",
    };

    private Caps() {
    }

    /**
     * The capability bits of {@code caps} as {@code FI_A|FI_B}; bits without a name appear as
     * {@code 0x...}; {@code 0} gives {@code "none"}.
     */
    public static String names(long caps) {
        if (caps == 0) {
            return "none";
        }
        StringBuilder sb = new StringBuilder();
        long rest = caps;
        for (int i = 0; i < BITS.length; i++) {
            if ((rest & BITS[i]) != 0) {
                if (sb.length() > 0) {
                    sb.append('|');
                }
                sb.append(NAMES[i]);
                rest &= ~BITS[i];
            }
        }
        if (rest != 0) {
            if (sb.length() > 0) {
                sb.append('|');
            }
            sb.append("0x").append(Long.toHexString(rest));
        }
        return sb.toString();
    }
}
