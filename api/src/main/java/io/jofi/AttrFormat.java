package io.jofi;

/**
 * Renders attribute fields the way libfabric's {@code fi_tostr(3)} and {@code fi_info -v} do:
 * bit masks as {@code [ FI_MSG, FI_RMA ]}, enums by their {@code FI_*} names, sizes as unsigned
 * decimals, versions as {@code major.minor}. Used by the {@code toString()} of the attribute
 * classes.
 *
 * <p>The bit tables carry libfabric's values ({@code rdma/fabric.h}) on purpose, so that this
 * class does not depend on {@code Fi}. Bits no table names are printed in hex rather than dropped.
 */
final class AttrFormat {

    /** Indentation of one level, as in libfabric ({@code TAB}). */
    static final String TAB = "    ";

    /** What libfabric prints for a null pointer. */
    static final String NULL = "(null)";

    /** What libfabric prints for a null fid. */
    static final String NIL = "(nil)";

    /** {@code FI_SHARED_CONTEXT} ({@code SIZE_MAX}) in {@code tx_ctx_cnt}/{@code rx_ctx_cnt}. */
    static final long FI_SHARED_CONTEXT = -1L;

    // ---- capability bits (ofi_tostr_caps), in libfabric's printing order ----
    private static final String[] CAP_NAMES = {
        "FI_MSG", "FI_RMA", "FI_TAGGED", "FI_ATOMIC", "FI_MULTICAST", "FI_COLLECTIVE",
        "FI_READ", "FI_WRITE", "FI_RECV", "FI_SEND", "FI_REMOTE_READ", "FI_REMOTE_WRITE",
        "FI_MULTI_RECV", "FI_REMOTE_CQ_DATA", "FI_TRIGGER", "FI_FENCE",
        "FI_HMEM", "FI_VARIABLE_MSG", "FI_RMA_PMEM", "FI_SOURCE_ERR", "FI_LOCAL_COMM",
        "FI_REMOTE_COMM", "FI_SHARED_AV", "FI_RMA_EVENT", "FI_SOURCE", "FI_NAMED_RX_CTX",
        "FI_DIRECTED_RECV",
    };
    private static final long[] CAP_BITS = {
        1L << 1, 1L << 2, 1L << 3, 1L << 4, 1L << 5, 1L << 6,
        1L << 8, 1L << 9, 1L << 10, 1L << 11, 1L << 12, 1L << 13,
        1L << 16, 1L << 17, 1L << 20, 1L << 21,
        1L << 47, 1L << 48, 1L << 49, 1L << 50, 1L << 51,
        1L << 52, 1L << 53, 1L << 56, 1L << 57, 1L << 58,
        1L << 59,
    };

    // ---- mode bits (ofi_tostr_mode) ----
    private static final String[] MODE_NAMES = {
        "FI_CONTEXT", "FI_MSG_PREFIX", "FI_ASYNC_IOV", "FI_RX_CQ_DATA", "FI_LOCAL_MR",
        "FI_NOTIFY_FLAGS_ONLY", "FI_RESTRICTED_COMP", "FI_CONTEXT2", "FI_BUFFERED_RECV",
    };
    private static final long[] MODE_BITS = {
        1L << 59, 1L << 58, 1L << 57, 1L << 56, 1L << 55,
        1L << 54, 1L << 53, 1L << 52, 1L << 51,
    };

    // ---- operation flags (ofi_tostr_opflags): FI_CLAIM/FI_DISCARD reuse caps bits 59/58 ----
    private static final String[] OP_FLAG_NAMES = {
        "FI_MULTICAST", "FI_MULTI_RECV", "FI_REMOTE_CQ_DATA", "FI_MORE", "FI_PEEK", "FI_TRIGGER",
        "FI_FENCE", "FI_COMPLETION", "FI_INJECT", "FI_INJECT_COMPLETE", "FI_TRANSMIT_COMPLETE",
        "FI_DELIVERY_COMPLETE", "FI_MATCH_COMPLETE", "FI_COMMIT_COMPLETE", "FI_AFFINITY",
        "FI_CLAIM", "FI_DISCARD",
    };
    private static final long[] OP_FLAG_BITS = {
        1L << 5, 1L << 16, 1L << 17, 1L << 18, 1L << 19, 1L << 20,
        1L << 21, 1L << 24, 1L << 25, 1L << 26, 1L << 27,
        1L << 28, 1L << 31, 1L << 30, 1L << 29,
        1L << 59, 1L << 58,
    };

    // ---- message ordering (ofi_tostr_msgorder) ----
    private static final String[] ORDER_NAMES = {
        "FI_ORDER_RAR", "FI_ORDER_RAW", "FI_ORDER_RAS", "FI_ORDER_WAR", "FI_ORDER_WAW",
        "FI_ORDER_WAS", "FI_ORDER_SAR", "FI_ORDER_SAW", "FI_ORDER_SAS",
        "FI_ORDER_RMA_RAR", "FI_ORDER_RMA_RAW", "FI_ORDER_RMA_WAR", "FI_ORDER_RMA_WAW",
        "FI_ORDER_ATOMIC_RAR", "FI_ORDER_ATOMIC_RAW", "FI_ORDER_ATOMIC_WAR", "FI_ORDER_ATOMIC_WAW",
        "FI_ORDER_DATA",
    };
    private static final long[] ORDER_BITS = {
        1L << 0, 1L << 1, 1L << 2, 1L << 3, 1L << 4,
        1L << 5, 1L << 6, 1L << 7, 1L << 8,
        1L << 32, 1L << 33, 1L << 34, 1L << 35,
        1L << 36, 1L << 37, 1L << 38, 1L << 39,
        1L << 16,
    };
    /** {@code FI_ORDER_STRICT}: the nine basic ordering bits. */
    private static final long FI_ORDER_STRICT = 0x1FFL;
    private static final long FI_ORDER_DATA = 1L << 16;

    // ---- memory registration modes (ofi_tostr_mr_mode) ----
    private static final String[] MR_MODE_NAMES = {
        "FI_MR_BASIC", "FI_MR_SCALABLE", "FI_MR_LOCAL", "FI_MR_RAW", "FI_MR_VIRT_ADDR",
        "FI_MR_ALLOCATED", "FI_MR_PROV_KEY", "FI_MR_MMU_NOTIFY", "FI_MR_RMA_EVENT",
        "FI_MR_ENDPOINT", "FI_MR_HMEM", "FI_MR_COLLECTIVE",
    };
    private static final long[] MR_MODE_BITS = {
        1L, 1L << 1, 1L << 2, 1L << 3, 1L << 4,
        1L << 5, 1L << 6, 1L << 7, 1L << 8,
        1L << 9, 1L << 10, 1L << 11,
    };

    // ---- flags of fi_cq_attr / fi_eq_attr / fi_av_attr ----
    private static final String[] CQ_FLAG_NAMES = {"FI_AFFINITY"};
    private static final long[] CQ_FLAG_BITS = {1L << 29};
    private static final String[] EQ_FLAG_NAMES = {"FI_WRITE", "FI_AFFINITY"};
    private static final long[] EQ_FLAG_BITS = {1L << 9, 1L << 29};
    private static final String[] AV_FLAG_NAMES = {"FI_EVENT", "FI_READ", "FI_SYMMETRIC"};
    private static final long[] AV_FLAG_BITS = {1L << 24, 1L << 8, 1L << 59};

    // ---- endpoint protocols (enum in fi_endpoint.h), indexed by value ----
    private static final String[] PROTOCOLS = {
        "FI_PROTO_UNSPEC", "FI_PROTO_RDMA_CM_IB_RC", "FI_PROTO_IWARP", "FI_PROTO_IB_UD",
        "FI_PROTO_PSMX", "FI_PROTO_UDP", "FI_PROTO_SOCK_TCP", "FI_PROTO_MXM",
        "FI_PROTO_IWARP_RDM", "FI_PROTO_IB_RDM", "FI_PROTO_GNI", "FI_PROTO_RXM",
        "FI_PROTO_RXD", "FI_PROTO_MLX", "FI_PROTO_NETWORKDIRECT", "FI_PROTO_PSMX2",
        "FI_PROTO_SHM", "FI_PROTO_MRAIL", "FI_PROTO_RSTREAM", "FI_PROTO_RDMA_CM_IB_XRC",
        "FI_PROTO_EFA", "FI_PROTO_PSMX3", "FI_PROTO_RXM_TCP", "FI_PROTO_OPX",
        "FI_PROTO_CXI", "FI_PROTO_XNET", "FI_PROTO_COLL", "FI_PROTO_UCX",
        "FI_PROTO_SM2",
    };

    /** {@code FI_PROV_SPECIFIC}: the high bit marks provider-specific protocol values. */
    private static final int FI_PROV_SPECIFIC = 1 << 31;

    private AttrFormat() {
    }

    static String caps(long caps) {
        return bits(caps, CAP_BITS, CAP_NAMES);
    }

    static String mode(long mode) {
        return bits(mode, MODE_BITS, MODE_NAMES);
    }

    static String opFlags(long flags) {
        return bits(flags, OP_FLAG_BITS, OP_FLAG_NAMES);
    }

    static String msgOrder(long order) {
        return bits(order, ORDER_BITS, ORDER_NAMES);
    }

    /** {@code comp_order}: FI_ORDER_NONE or FI_ORDER_STRICT, then FI_ORDER_DATA, as libfabric. */
    static String compOrder(long order) {
        StringBuilder sb = new StringBuilder("[ ");
        long basic = order & FI_ORDER_STRICT;
        boolean any = false;
        if (basic == 0) {
            sb.append("FI_ORDER_NONE");
            any = true;
        } else if (basic == FI_ORDER_STRICT) {
            sb.append("FI_ORDER_STRICT");
            any = true;
        }
        long rest = basic == 0 || basic == FI_ORDER_STRICT ? order & ~FI_ORDER_STRICT : order;
        if ((rest & FI_ORDER_DATA) != 0) {
            sb.append(any ? ", " : "").append("FI_ORDER_DATA");
            any = true;
            rest &= ~FI_ORDER_DATA;
        }
        appendNamed(sb, rest, ORDER_BITS, ORDER_NAMES, any);
        return sb.append(" ]").toString();
    }

    static String mrMode(long mrMode) {
        return bits(mrMode, MR_MODE_BITS, MR_MODE_NAMES);
    }

    static String cqFlags(long flags) {
        return bits(flags, CQ_FLAG_BITS, CQ_FLAG_NAMES);
    }

    static String eqFlags(long flags) {
        return bits(flags, EQ_FLAG_BITS, EQ_FLAG_NAMES);
    }

    static String avFlags(long flags) {
        return bits(flags, AV_FLAG_BITS, AV_FLAG_NAMES);
    }

    /** An endpoint protocol ({@code FI_PROTO_*}) by name, as {@code fi_tostr(FI_TYPE_PROTOCOL)}. */
    static String protocol(int protocol) {
        if (protocol >= 0 && protocol < PROTOCOLS.length) {
            return PROTOCOLS[protocol];
        }
        if ((protocol & FI_PROV_SPECIFIC) != 0) {
            return "Provider specific (0x" + Integer.toHexString(protocol) + ")";
        }
        return "Unknown (" + protocol + ")";
    }

    /** {@code FI_MAJOR(v).FI_MINOR(v)}. */
    static String version(int version) {
        return (version >>> 16) + "." + (version & 0xFFFF);
    }

    /** A {@code size_t} as libfabric's {@code %zu} prints it. */
    static String size(long value) {
        return Long.toUnsignedString(value);
    }

    /** A {@code tx_ctx_cnt}/{@code rx_ctx_cnt} of {@code fi_ep_attr}. */
    static String ctxCnt(long value) {
        return value == FI_SHARED_CONTEXT ? "FI_SHARED_CONTEXT" : size(value);
    }

    /** {@code 0x%x}. */
    static String hex(int value) {
        return "0x" + Integer.toHexString(value);
    }

    /** {@code 0x%lx}. */
    static String hex(long value) {
        return "0x" + Long.toHexString(value);
    }

    /** {@code 0x%016llx}. */
    static String hex16(long value) {
        String h = Long.toHexString(value);
        return "0x" + "0000000000000000".substring(h.length()) + h;
    }

    /** A string field: the text, or {@code (null)}. */
    static String str(String s) {
        return s == null ? NULL : s;
    }

    /** A fid-like reference: {@code (nil)} or the object's own string. */
    static String ref(Object o) {
        return o == null ? NIL : String.valueOf(o);
    }

    /** An address as {@code fi_tostr} prints it: {@code (null)} or {@link Addresses#toString}. */
    static String addr(byte[] addr) {
        return addr == null ? NULL : Addresses.toString(addr);
    }

    /** One {@code key: value} line at {@code indent}. */
    static void line(StringBuilder sb, String indent, String key, Object value) {
        sb.append(indent).append(key).append(": ").append(value).append('\n');
    }

    /**
     * {@code [ NAME, NAME, 0x... ]}: named bits in table order, then any unnamed bits in hex;
     * {@code [ ]} when no bit is set.
     */
    static String bits(long value, long[] bits, String[] names) {
        if (value == 0) {
            return "[ ]";
        }
        StringBuilder sb = new StringBuilder("[ ");
        appendNamed(sb, value, bits, names, false);
        return sb.append(" ]").toString();
    }

    private static void appendNamed(StringBuilder sb, long value, long[] bits, String[] names,
                                    boolean any) {
        long rest = value;
        for (int i = 0; i < bits.length; i++) {
            if ((value & bits[i]) != 0) {
                sb.append(any ? ", " : "").append(names[i]);
                any = true;
                rest &= ~bits[i];
            }
        }
        if (rest != 0) {
            sb.append(any ? ", " : "").append("0x").append(Long.toHexString(rest));
        }
    }
}
