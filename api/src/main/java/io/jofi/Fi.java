package io.jofi;

import java.util.Locale;

/**
 * The constants of the fabric interface, with libfabric's names and libfabric's numeric
 * values: everything {@code rdma/fabric.h}, {@code fi_eq.h} (event and completion queues,
 * counters, wait objects), {@code fi_endpoint.h}, {@code fi_domain.h} (address vectors,
 * memory registration, atomic operations and datatypes), {@code fi_atomic.h} and
 * {@code fi_trigger.h} define. Values are those of libfabric 1.17 (API 1.17); a few
 * additions of later 1.x releases are included and marked as such.
 *
 * <p>Capability, operation-flag and mode bits and fabric addresses ({@code fi_addr_t}) are
 * {@code long}; enumerations (event codes, atomic operations and datatypes, option names,
 * control commands, ...) are {@code int}. Some bits carry several meanings depending on
 * where they are used, exactly as in libfabric: bit 59 is {@link #FI_DIRECTED_RECV} in
 * capabilities, {@link #FI_CLAIM} in operation flags, {@link #FI_CONTEXT} in modes and
 * {@link #FI_SELECTIVE_COMPLETION} / {@link #FI_REG_MR} in bind flags.
 *
 * <p>The error numbers are in {@link Errno}.
 */
public final class Fi {

    private Fi() {
    }

    // =====================================================================================
    // Versions and limits (fabric.h)
    // =====================================================================================

    /** Major number of the libfabric API this mapping follows. */
    public static final int FI_MAJOR_VERSION = 1;
    /** Minor number of the libfabric API this mapping follows. */
    public static final int FI_MINOR_VERSION = 17;
    /** Revision number of the libfabric release this mapping follows. */
    public static final int FI_REVISION_VERSION = 0;

    /** Longest path name libfabric passes around, in bytes. */
    public static final int FI_PATH_MAX = 256;
    /** Longest object name (fabric, domain, provider), in bytes. */
    public static final int FI_NAME_MAX = 64;
    /** Longest version string, in bytes. */
    public static final int FI_VERSION_MAX = 64;

    /** Marks a value (option name, fid value name, ...) as provider specific: C's {@code 1U << 31}, here the same 32 bits as a negative int. */
    public static final int FI_PROV_SPECIFIC = 1 << 31;

    /** Encodes an API version like {@code FI_VERSION(major, minor)}: {@code major << 16 | minor}. */
    public static int version(int major, int minor) {
        return (major << 16) | minor;
    }

    /** The major number of a version made by {@link #version(int, int)} ({@code FI_MAJOR}). */
    public static int versionMajor(int version) {
        return version >>> 16;
    }

    /** The minor number of a version made by {@link #version(int, int)} ({@code FI_MINOR}). */
    public static int versionMinor(int version) {
        return version & 0xFFFF;
    }

    /** {@code FI_VERSION_GE}: whether version {@code v1} is at least {@code v2}. */
    public static boolean versionGe(int v1, int v2) {
        return Integer.compareUnsigned(v1, v2) >= 0;
    }

    /** {@code FI_VERSION_LT}: whether version {@code v1} is older than {@code v2}. */
    public static boolean versionLt(int v1, int v2) {
        return Integer.compareUnsigned(v1, v2) < 0;
    }

    /** The version of the API this mapping follows: {@code version(FI_MAJOR_VERSION, FI_MINOR_VERSION)}. */
    public static final int FI_API_VERSION = (FI_MAJOR_VERSION << 16) | FI_MINOR_VERSION;

    // =====================================================================================
    // Capabilities and operation flags (fabric.h)
    // =====================================================================================

    /** Capability: send and receive messages (fi_msg). */
    public static final long FI_MSG = 1L << 1;
    /** Capability: RMA read and write (fi_rma). */
    public static final long FI_RMA = 1L << 2;
    /** Capability: tagged messages (fi_tagged). */
    public static final long FI_TAGGED = 1L << 3;
    /** Capability: atomic operations (fi_atomic). */
    public static final long FI_ATOMIC = 1L << 4;
    /** Old spelling of {@link #FI_ATOMIC}. */
    public static final long FI_ATOMICS = FI_ATOMIC;
    /** Capability and flag: multicast data transfers. */
    public static final long FI_MULTICAST = 1L << 5;
    /** Capability: collective operations (fi_collective). */
    public static final long FI_COLLECTIVE = 1L << 6;

    /** Capability modifier / access flag: initiate reads (RMA, atomics). */
    public static final long FI_READ = 1L << 8;
    /** Capability modifier / access flag: initiate writes; EQ attribute flag: allow fi_eq_write. */
    public static final long FI_WRITE = 1L << 9;
    /** Capability modifier / bind and completion flag: receive side. */
    public static final long FI_RECV = 1L << 10;
    /** Capability modifier / bind and completion flag: transmit side. */
    public static final long FI_SEND = 1L << 11;
    /** Same as {@link #FI_SEND}. */
    public static final long FI_TRANSMIT = FI_SEND;
    /** Capability modifier / access flag: be the target of remote reads. */
    public static final long FI_REMOTE_READ = 1L << 12;
    /** Capability modifier / access flag: be the target of remote writes. */
    public static final long FI_REMOTE_WRITE = 1L << 13;

    /** Capability and receive flag: one buffer receives several messages. */
    public static final long FI_MULTI_RECV = 1L << 16;
    /** Operation and completion flag: remote CQ data is sent or was received. */
    public static final long FI_REMOTE_CQ_DATA = 1L << 17;
    /** Operation flag: more operations follow at once (batching hint); CQ flag: more entries follow. */
    public static final long FI_MORE = 1L << 18;
    /** Flag: look at the next entry (EQ/CQ read, tagged search) without consuming it. */
    public static final long FI_PEEK = 1L << 19;
    /** Capability and operation flag: triggered operations (fi_trigger). */
    public static final long FI_TRIGGER = 1L << 20;
    /** Capability and operation flag: fence, wait for previous operations before this one. */
    public static final long FI_FENCE = 1L << 21;
    /** Operation flag: prioritized operation. */
    public static final long FI_PRIORITY = 1L << 22;

    /** Operation flag: generate a completion for this operation. */
    public static final long FI_COMPLETION = 1L << 24;
    /** Same as {@link #FI_COMPLETION}; also the flag that makes AV inserts and MR registrations report to an EQ. */
    public static final long FI_EVENT = FI_COMPLETION;
    /** Operation flag: the buffer may be reused as soon as the call returns. */
    public static final long FI_INJECT = 1L << 25;
    /** Completion level: the source buffer may be reused. */
    public static final long FI_INJECT_COMPLETE = 1L << 26;
    /** Completion level: the operation has left the initiator (reached the peer's transport). */
    public static final long FI_TRANSMIT_COMPLETE = 1L << 27;
    /** Completion level: the data is available to the peer application. */
    public static final long FI_DELIVERY_COMPLETE = 1L << 28;
    /** CQ/counter attribute flag: signaling_vector names a CPU core. */
    public static final long FI_AFFINITY = 1L << 29;
    /** Completion level: the data is persistent at the target (persistent memory). */
    public static final long FI_COMMIT_COMPLETE = 1L << 30;
    /** Completion level: the message has been matched to a receive at the target. */
    public static final long FI_MATCH_COMPLETE = 1L << 31;

    /** Flag: the operation is a peer transfer (peer provider API). */
    public static final long FI_PEER_TRANSFER = 1L << 36;
    /** MR flag: register a dma-buf region (added after 1.17, in 1.20; same bit as {@link #FI_BARRIER_SET}). */
    public static final long FI_MR_DMABUF = 1L << 40;
    /** Capability and AV flag: user-specified ids are returned instead of AV addresses. */
    public static final long FI_AV_USER_ID = 1L << 41;
    /** Capability: usable as a peer provider. */
    public static final long FI_PEER = 1L << 43;
    /** Flag: triggered operation whose trigger is an XPU (device) event. */
    public static final long FI_XPU_TRIGGER = 1L << 44;
    /** Flag: host memory allocated through the device runtime (HMEM). */
    public static final long FI_HMEM_HOST_ALLOC = 1L << 45;
    /** Flag: device memory that may only be accessed by the device (HMEM). */
    public static final long FI_HMEM_DEVICE_ONLY = 1L << 46;
    /** Capability: transfers from and to device memory. */
    public static final long FI_HMEM = 1L << 47;
    /** Capability: variable-length messages (receiver learns the size first). */
    public static final long FI_VARIABLE_MSG = 1L << 48;
    /** Capability: RMA to and from persistent memory. */
    public static final long FI_RMA_PMEM = 1L << 49;
    /** Capability: report unknown source addresses as errors with the raw address. */
    public static final long FI_SOURCE_ERR = 1L << 50;
    /** Capability: communication with endpoints on the same host. */
    public static final long FI_LOCAL_COMM = 1L << 51;
    /** Capability: communication with endpoints on other hosts. */
    public static final long FI_REMOTE_COMM = 1L << 52;
    /** Capability / AV flag: address vectors shared between processes. */
    public static final long FI_SHARED_AV = 1L << 53;
    /** fi_getinfo flag: return only provider attributes (one stub per provider). */
    public static final long FI_PROV_ATTR_ONLY = 1L << 54;
    /** fi_getinfo flag: the node is a numeric address, resolve no names. */
    public static final long FI_NUMERICHOST = 1L << 55;
    /** Capability: generate events when targeted by RMA/atomics; MR flag of the same name. */
    public static final long FI_RMA_EVENT = 1L << 56;
    /** Capability: report source addresses in completions; fi_getinfo flag: node/service is the local address. */
    public static final long FI_SOURCE = 1L << 57;
    /** Capability: name a receive context of a scalable endpoint in transfers. */
    public static final long FI_NAMED_RX_CTX = 1L << 58;
    /** Capability: receives match on the source address. */
    public static final long FI_DIRECTED_RECV = 1L << 59;

    /** Tagged-receive / CQ flag: claim a message found with FI_PEEK (same bit as {@link #FI_DIRECTED_RECV}). */
    public static final long FI_CLAIM = 1L << 59;
    /** Tagged-receive / CQ flag: discard a message found with FI_PEEK (same bit as {@link #FI_NAMED_RX_CTX}). */
    public static final long FI_DISCARD = 1L << 58;
    /** Flag: an authorization key accompanies the call (added after 1.17, in 1.20; same bit as {@link #FI_SOURCE}). */
    public static final long FI_AUTH_KEY = 1L << 57;

    // =====================================================================================
    // Fabric addresses and keys (fabric.h)
    // =====================================================================================

    /** Unspecified fabric address ({@code (fi_addr_t) -1}): any source / no address. */
    public static final long FI_ADDR_UNSPEC = -1L;
    /** Fabric address not available ({@code (fi_addr_t) -1}). */
    public static final long FI_ADDR_NOTAVAIL = -1L;
    /** Memory region key not available ({@code (uint64_t) -1}). */
    public static final long FI_KEY_NOTAVAIL = -1L;
    /** Context count meaning "use a shared context" ({@code SIZE_MAX}). */
    public static final long FI_SHARED_CONTEXT = -1L;
    /** AV count meaning "authorization keys" ({@code SIZE_MAX}; added after 1.17, in 1.20). */
    public static final long FI_AV_AUTH_KEY = -1L;

    // =====================================================================================
    // Address formats (fabric.h, anonymous enum; values of fi_info addr_format)
    // =====================================================================================

    /** Address format: unspecified ({@code void *}). */
    public static final int FI_FORMAT_UNSPEC = 0;
    /** Address format: {@code struct sockaddr}. */
    public static final int FI_SOCKADDR = 1;
    /** Address format: {@code struct sockaddr_in}. */
    public static final int FI_SOCKADDR_IN = 2;
    /** Address format: {@code struct sockaddr_in6}. */
    public static final int FI_SOCKADDR_IN6 = 3;
    /** Address format: {@code struct sockaddr_ib}. */
    public static final int FI_SOCKADDR_IB = 4;
    /** Address format: PSM (deprecated provider), {@code uint64_t}. */
    public static final int FI_ADDR_PSMX = 5;
    /** Address format: Cray GNI. */
    public static final int FI_ADDR_GNI = 6;
    /** Address format: Blue Gene/Q. */
    public static final int FI_ADDR_BGQ = 7;
    /** Address format: Mellanox MXM. */
    public static final int FI_ADDR_MLX = 8;
    /** Address format: formatted string ({@code "prov://addr"}). */
    public static final int FI_ADDR_STR = 9;
    /** Address format: PSM2, {@code uint64_t[2]}. */
    public static final int FI_ADDR_PSMX2 = 10;
    /** Address format: InfiniBand UD, {@code uint64_t[4]}. */
    public static final int FI_ADDR_IB_UD = 11;
    /** Address format: AWS EFA. */
    public static final int FI_ADDR_EFA = 12;
    /** Address format: PSM3, {@code uint64_t[4]}. */
    public static final int FI_ADDR_PSMX3 = 13;
    /** Address format: Cornelis OPX. */
    public static final int FI_ADDR_OPX = 14;
    /** Address format: HPE Cassini (CXI). */
    public static final int FI_ADDR_CXI = 15;
    /** Address format: UCX (added after 1.17, in 1.20). */
    public static final int FI_ADDR_UCX = 16;

    // =====================================================================================
    // Domain attribute enumerations (fabric.h)
    // =====================================================================================

    /** AV type: let the provider choose. */
    public static final int FI_AV_UNSPEC = 0;
    /** AV type: fabric addresses are provider-defined values. */
    public static final int FI_AV_MAP = 1;
    /** AV type: fabric addresses are consecutive indices. */
    public static final int FI_AV_TABLE = 2;

    /** MR mode (enum fi_mr_mode, an int in C): unspecified. */
    public static final long FI_MR_UNSPEC = 0L;
    /** MR mode (an int in C): basic registration (old API; {@code 1 << 0}). */
    public static final long FI_MR_BASIC = 1L;
    /** MR mode (an int in C): scalable registration (old API; {@code 1 << 1}). */
    public static final long FI_MR_SCALABLE = 2L;
    /** MR mode bit (an int in C): local buffers must be registered too. */
    public static final long FI_MR_LOCAL = 1L << 2;
    /** MR mode bit (an int in C): keys are raw, use fi_mr_raw_attr / fi_mr_map_raw. */
    public static final long FI_MR_RAW = 1L << 3;
    /** MR mode bit (an int in C): RMA targets virtual addresses, not offsets. */
    public static final long FI_MR_VIRT_ADDR = 1L << 4;
    /** MR mode bit (an int in C): only memory backed by allocated pages may be registered. */
    public static final long FI_MR_ALLOCATED = 1L << 5;
    /** MR mode bit (an int in C): the provider chooses the keys. */
    public static final long FI_MR_PROV_KEY = 1L << 6;
    /** MR mode bit (an int in C): the application must refresh regions when mappings change. */
    public static final long FI_MR_MMU_NOTIFY = 1L << 7;
    /** MR mode bit (an int in C): regions must be enabled (fi_mr_enable) before use. */
    public static final long FI_MR_RMA_EVENT = 1L << 8;
    /** MR mode bit (an int in C): regions are bound to endpoints. */
    public static final long FI_MR_ENDPOINT = 1L << 9;
    /** MR mode bit (an int in C): device (HMEM) buffers must be registered. */
    public static final long FI_MR_HMEM = 1L << 10;
    /** MR mode bit (an int in C): collective buffers must be registered. */
    public static final long FI_MR_COLLECTIVE = 1L << 11;

    /** Progress model: unspecified. */
    public static final int FI_PROGRESS_UNSPEC = 0;
    /** Progress model: the provider makes progress on its own. */
    public static final int FI_PROGRESS_AUTO = 1;
    /** Progress model: progress happens only inside the application's calls. */
    public static final int FI_PROGRESS_MANUAL = 2;

    /** Threading model: unspecified. */
    public static final int FI_THREAD_UNSPEC = 0;
    /** Threading model: all objects are thread safe. */
    public static final int FI_THREAD_SAFE = 1;
    /** Threading model: one thread per object at a time. */
    public static final int FI_THREAD_FID = 2;
    /** Threading model: one thread per domain at a time. */
    public static final int FI_THREAD_DOMAIN = 3;
    /** Threading model: one thread per completion context at a time. */
    public static final int FI_THREAD_COMPLETION = 4;
    /** Threading model: one thread per endpoint at a time. */
    public static final int FI_THREAD_ENDPOINT = 5;

    /** Resource management: unspecified. */
    public static final int FI_RM_UNSPEC = 0;
    /** Resource management: disabled, overruns are the application's problem. */
    public static final int FI_RM_DISABLED = 1;
    /** Resource management: enabled, the provider protects queues from overrun. */
    public static final int FI_RM_ENABLED = 2;

    // =====================================================================================
    // Message and completion ordering (fabric.h)
    // =====================================================================================

    /** Ordering: none guaranteed. */
    public static final long FI_ORDER_NONE = 0L;
    /** Ordering: read after read. */
    public static final long FI_ORDER_RAR = 1L << 0;
    /** Ordering: read after write. */
    public static final long FI_ORDER_RAW = 1L << 1;
    /** Ordering: read after send. */
    public static final long FI_ORDER_RAS = 1L << 2;
    /** Ordering: write after read. */
    public static final long FI_ORDER_WAR = 1L << 3;
    /** Ordering: write after write. */
    public static final long FI_ORDER_WAW = 1L << 4;
    /** Ordering: write after send. */
    public static final long FI_ORDER_WAS = 1L << 5;
    /** Ordering: send after read. */
    public static final long FI_ORDER_SAR = 1L << 6;
    /** Ordering: send after write. */
    public static final long FI_ORDER_SAW = 1L << 7;
    /** Ordering: send after send. */
    public static final long FI_ORDER_SAS = 1L << 8;
    /** Ordering / completion order: all of RAR..SAS (0x1FF); completions in submission order. */
    public static final long FI_ORDER_STRICT = 0x1FFL;
    /** Ordering: RMA read after RMA read. */
    public static final long FI_ORDER_RMA_RAR = 1L << 32;
    /** Ordering: RMA read after RMA write. */
    public static final long FI_ORDER_RMA_RAW = 1L << 33;
    /** Ordering: RMA write after RMA read. */
    public static final long FI_ORDER_RMA_WAR = 1L << 34;
    /** Ordering: RMA write after RMA write. */
    public static final long FI_ORDER_RMA_WAW = 1L << 35;
    /** Ordering: atomic read after atomic read. */
    public static final long FI_ORDER_ATOMIC_RAR = 1L << 36;
    /** Ordering: atomic read after atomic write. */
    public static final long FI_ORDER_ATOMIC_RAW = 1L << 37;
    /** Ordering: atomic write after atomic read. */
    public static final long FI_ORDER_ATOMIC_WAR = 1L << 38;
    /** Ordering: atomic write after atomic write. */
    public static final long FI_ORDER_ATOMIC_WAW = 1L << 39;
    /** Completion order: data is placed in the order of the operations. */
    public static final long FI_ORDER_DATA = 1L << 16;

    // =====================================================================================
    // Endpoint types, protocols, traffic classes (fabric.h)
    // =====================================================================================

    /** Endpoint type: unspecified. */
    public static final int FI_EP_UNSPEC = 0;
    /** Endpoint type: reliable, connection oriented. */
    public static final int FI_EP_MSG = 1;
    /** Endpoint type: unreliable datagram. */
    public static final int FI_EP_DGRAM = 2;
    /** Endpoint type: reliable datagram (reliable, connectionless). */
    public static final int FI_EP_RDM = 3;
    /** Endpoint type: socket-like byte stream. */
    public static final int FI_EP_SOCK_STREAM = 4;
    /** Endpoint type: socket-like datagram. */
    public static final int FI_EP_SOCK_DGRAM = 5;

    /** Protocol: unspecified. */
    public static final int FI_PROTO_UNSPEC = 0;
    /** Protocol: InfiniBand RC over rdma_cm. */
    public static final int FI_PROTO_RDMA_CM_IB_RC = 1;
    /** Protocol: iWARP. */
    public static final int FI_PROTO_IWARP = 2;
    /** Protocol: InfiniBand UD. */
    public static final int FI_PROTO_IB_UD = 3;
    /** Protocol: PSM (deprecated). */
    public static final int FI_PROTO_PSMX = 4;
    /** Protocol: UDP. */
    public static final int FI_PROTO_UDP = 5;
    /** Protocol: TCP sockets. */
    public static final int FI_PROTO_SOCK_TCP = 6;
    /** Protocol: MXM (deprecated). */
    public static final int FI_PROTO_MXM = 7;
    /** Protocol: iWARP reliable datagram. */
    public static final int FI_PROTO_IWARP_RDM = 8;
    /** Protocol: InfiniBand reliable datagram. */
    public static final int FI_PROTO_IB_RDM = 9;
    /** Protocol: Cray GNI. */
    public static final int FI_PROTO_GNI = 10;
    /** Protocol: RxM utility provider. */
    public static final int FI_PROTO_RXM = 11;
    /** Protocol: RxD utility provider. */
    public static final int FI_PROTO_RXD = 12;
    /** Protocol: Mellanox. */
    public static final int FI_PROTO_MLX = 13;
    /** Protocol: NetworkDirect. */
    public static final int FI_PROTO_NETWORKDIRECT = 14;
    /** Protocol: PSM2. */
    public static final int FI_PROTO_PSMX2 = 15;
    /** Protocol: shared memory. */
    public static final int FI_PROTO_SHM = 16;
    /** Protocol: multi-rail. */
    public static final int FI_PROTO_MRAIL = 17;
    /** Protocol: rstream. */
    public static final int FI_PROTO_RSTREAM = 18;
    /** Protocol: InfiniBand XRC over rdma_cm. */
    public static final int FI_PROTO_RDMA_CM_IB_XRC = 19;
    /** Protocol: AWS EFA. */
    public static final int FI_PROTO_EFA = 20;
    /** Protocol: PSM3. */
    public static final int FI_PROTO_PSMX3 = 21;
    /** Protocol: RxM over TCP. */
    public static final int FI_PROTO_RXM_TCP = 22;
    /** Protocol: Cornelis OPX. */
    public static final int FI_PROTO_OPX = 23;
    /** Protocol: HPE Cassini (CXI). */
    public static final int FI_PROTO_CXI = 24;
    /** Protocol: the tcp ("xnet") provider's own protocol. */
    public static final int FI_PROTO_XNET = 25;
    /** Protocol: collective offload provider (added after 1.17, in 1.20). */
    public static final int FI_PROTO_COLL = 26;
    /** Protocol: UCX (added after 1.17, in 1.20). */
    public static final int FI_PROTO_UCX = 27;
    /** Protocol: sm2 shared memory (added after 1.17, in 1.20). */
    public static final int FI_PROTO_SM2 = 28;

    /** Traffic class: unspecified. */
    public static final int FI_TC_UNSPEC = 0;
    /** Traffic class flag: the low byte is a DSCP value. */
    public static final int FI_TC_DSCP = 0x100;
    /** Traffic class flag: the value is a label. */
    public static final int FI_TC_LABEL = 0x200;
    /** Traffic class: best effort. */
    public static final int FI_TC_BEST_EFFORT = FI_TC_LABEL;
    /** Traffic class: low latency. */
    public static final int FI_TC_LOW_LATENCY = 0x201;
    /** Traffic class: dedicated access. */
    public static final int FI_TC_DEDICATED_ACCESS = 0x202;
    /** Traffic class: bulk data. */
    public static final int FI_TC_BULK_DATA = 0x203;
    /** Traffic class: scavenger. */
    public static final int FI_TC_SCAVENGER = 0x204;
    /** Traffic class: network control. */
    public static final int FI_TC_NETWORK_CTRL = 0x205;

    /** {@code fi_tc_dscp_set}: a traffic class carrying DSCP value {@code dscp}. */
    public static int tcDscpSet(int dscp) {
        return (dscp & 0xFF) | FI_TC_DSCP;
    }

    /** {@code fi_tc_dscp_get}: the DSCP value of a traffic class, or 0. */
    public static int tcDscpGet(int tclass) {
        return (tclass & FI_TC_DSCP) != 0 ? tclass & 0xFF : 0;
    }

    // =====================================================================================
    // Mode bits (fabric.h)
    // =====================================================================================

    /** Mode: operation contexts must be {@code struct fi_context} owned by the provider until completion. */
    public static final long FI_CONTEXT = 1L << 59;
    /** Mode: send/receive buffers start with msg_prefix_size bytes for the provider. */
    public static final long FI_MSG_PREFIX = 1L << 58;
    /** Mode: IO vectors must stay valid until completion. */
    public static final long FI_ASYNC_IOV = 1L << 57;
    /** Mode: remote CQ data consumes a posted receive buffer. */
    public static final long FI_RX_CQ_DATA = 1L << 56;
    /** Mode (old API): local buffers must be registered. */
    public static final long FI_LOCAL_MR = 1L << 55;
    /** Mode: CQ entries of selective-completion operations report only flags. */
    public static final long FI_NOTIFY_FLAGS_ONLY = 1L << 54;
    /** Mode: completion queues/counters may be bound to one endpoint only. */
    public static final long FI_RESTRICTED_COMP = 1L << 53;
    /** Mode: like FI_CONTEXT with the doubled {@code struct fi_context2}. */
    public static final long FI_CONTEXT2 = 1L << 52;
    /** Mode: the provider buffers unexpected messages for the application (fi_msg buffered receive). */
    public static final long FI_BUFFERED_RECV = 1L << 51;

    // =====================================================================================
    // Bus, link and object classes (fabric.h)
    // =====================================================================================

    /** NIC bus type: unspecified. */
    public static final int FI_BUS_UNSPEC = 0;
    /** NIC bus type: unknown. */
    public static final int FI_BUS_UNKNOWN = FI_BUS_UNSPEC;
    /** NIC bus type: PCI. */
    public static final int FI_BUS_PCI = 1;

    /** Link state: unknown. */
    public static final int FI_LINK_UNKNOWN = 0;
    /** Link state: down. */
    public static final int FI_LINK_DOWN = 1;
    /** Link state: up. */
    public static final int FI_LINK_UP = 2;

    /** Object class: unspecified. */
    public static final int FI_CLASS_UNSPEC = 0;
    /** Object class: fabric. */
    public static final int FI_CLASS_FABRIC = 1;
    /** Object class: domain. */
    public static final int FI_CLASS_DOMAIN = 2;
    /** Object class: endpoint. */
    public static final int FI_CLASS_EP = 3;
    /** Object class: scalable endpoint. */
    public static final int FI_CLASS_SEP = 4;
    /** Object class: receive context. */
    public static final int FI_CLASS_RX_CTX = 5;
    /** Object class: shared receive context. */
    public static final int FI_CLASS_SRX_CTX = 6;
    /** Object class: transmit context. */
    public static final int FI_CLASS_TX_CTX = 7;
    /** Object class: shared transmit context. */
    public static final int FI_CLASS_STX_CTX = 8;
    /** Object class: passive endpoint. */
    public static final int FI_CLASS_PEP = 9;
    /** Object class: interface. */
    public static final int FI_CLASS_INTERFACE = 10;
    /** Object class: address vector. */
    public static final int FI_CLASS_AV = 11;
    /** Object class: memory region. */
    public static final int FI_CLASS_MR = 12;
    /** Object class: event queue. */
    public static final int FI_CLASS_EQ = 13;
    /** Object class: completion queue. */
    public static final int FI_CLASS_CQ = 14;
    /** Object class: counter. */
    public static final int FI_CLASS_CNTR = 15;
    /** Object class: wait set. */
    public static final int FI_CLASS_WAIT = 16;
    /** Object class: poll set. */
    public static final int FI_CLASS_POLL = 17;
    /** Object class: connection request. */
    public static final int FI_CLASS_CONNREQ = 18;
    /** Object class: multicast group. */
    public static final int FI_CLASS_MC = 19;
    /** Object class: NIC. */
    public static final int FI_CLASS_NIC = 20;
    /** Object class: AV set. */
    public static final int FI_CLASS_AV_SET = 21;
    /** Object class: MR cache. */
    public static final int FI_CLASS_MR_CACHE = 22;
    /** Object class: memory monitor. */
    public static final int FI_CLASS_MEM_MONITOR = 23;
    /** Object class: peer CQ. */
    public static final int FI_CLASS_PEER_CQ = 24;
    /** Object class: peer shared receive context. */
    public static final int FI_CLASS_PEER_SRX = 25;
    /** Object class: log. */
    public static final int FI_CLASS_LOG = 26;
    /** Object class: peer AV. */
    public static final int FI_CLASS_PEER_AV = 27;
    /** Object class: peer AV set. */
    public static final int FI_CLASS_PEER_AV_SET = 28;
    /** Object class: peer counter (added after 1.17, in 1.20). */
    public static final int FI_CLASS_PEER_CNTR = 29;
    /** Object class: profile (added after 1.17, in 1.20). */
    public static final int FI_CLASS_PROFILE = 30;

    /** Bind flag: completions only for operations with FI_COMPLETION (same bit as {@link #FI_DIRECTED_RECV}). */
    public static final long FI_SELECTIVE_COMPLETION = 1L << 59;

    // =====================================================================================
    // fi_control commands (fabric.h)
    // =====================================================================================

    /** fi_control: get the fid's flags ({@code uint64_t}). */
    public static final int FI_GETFIDFLAG = 0;
    /** fi_control: set the fid's flags ({@code uint64_t}). */
    public static final int FI_SETFIDFLAG = 1;
    /** fi_control: get the default operation flags ({@code uint64_t}). */
    public static final int FI_GETOPSFLAG = 2;
    /** fi_control: set the default operation flags ({@code uint64_t}). */
    public static final int FI_SETOPSFLAG = 3;
    /** fi_control: create an alias ({@code struct fi_alias}). */
    public static final int FI_ALIAS = 4;
    /** fi_control: get the wait object. */
    public static final int FI_GETWAIT = 5;
    /** fi_control: enable (endpoint, memory region). */
    public static final int FI_ENABLE = 6;
    /** fi_control: set the listen backlog of a passive endpoint ({@code int}). */
    public static final int FI_BACKLOG = 7;
    /** fi_control: get raw MR attributes ({@code struct fi_mr_raw_attr}). */
    public static final int FI_GET_RAW_MR = 8;
    /** fi_control: map a raw MR key ({@code struct fi_mr_map_raw}). */
    public static final int FI_MAP_RAW_MR = 9;
    /** fi_control: release a mapped key ({@code uint64_t}). */
    public static final int FI_UNMAP_KEY = 10;
    /** fi_control: queue deferred work ({@code struct fi_deferred_work}). */
    public static final int FI_QUEUE_WORK = 11;
    /** fi_control: cancel deferred work ({@code struct fi_deferred_work}). */
    public static final int FI_CANCEL_WORK = 12;
    /** fi_control: flush deferred work. */
    public static final int FI_FLUSH_WORK = 13;
    /** fi_control: refresh a memory region ({@code struct fi_mr_modify}). */
    public static final int FI_REFRESH = 14;
    /** fi_control: duplicate a fid ({@code struct fid **}). */
    public static final int FI_DUP = 15;
    /** fi_control: get the type of the wait object ({@code enum fi_wait_obj}). */
    public static final int FI_GETWAITOBJ = 16;
    /** fi_control: get a named value ({@code struct fi_fid_var}). */
    public static final int FI_GET_VAL = 17;
    /** fi_control: set a named value ({@code struct fi_fid_var}). */
    public static final int FI_SET_VAL = 18;
    /** fi_control: export a fid ({@code struct fi_fid_export}). */
    public static final int FI_EXPORT_FID = 19;

    // =====================================================================================
    // fi_tostr types and fi_param types (fabric.h)
    // =====================================================================================

    /** fi_tostr type: {@code struct fi_info}. */
    public static final int FI_TYPE_INFO = 0;
    /** fi_tostr type: endpoint type. */
    public static final int FI_TYPE_EP_TYPE = 1;
    /** fi_tostr type: capabilities. */
    public static final int FI_TYPE_CAPS = 2;
    /** fi_tostr type: operation flags. */
    public static final int FI_TYPE_OP_FLAGS = 3;
    /** fi_tostr type: address format. */
    public static final int FI_TYPE_ADDR_FORMAT = 4;
    /** fi_tostr type: transmit attributes. */
    public static final int FI_TYPE_TX_ATTR = 5;
    /** fi_tostr type: receive attributes. */
    public static final int FI_TYPE_RX_ATTR = 6;
    /** fi_tostr type: endpoint attributes. */
    public static final int FI_TYPE_EP_ATTR = 7;
    /** fi_tostr type: domain attributes. */
    public static final int FI_TYPE_DOMAIN_ATTR = 8;
    /** fi_tostr type: fabric attributes. */
    public static final int FI_TYPE_FABRIC_ATTR = 9;
    /** fi_tostr type: threading model. */
    public static final int FI_TYPE_THREADING = 10;
    /** fi_tostr type: progress model. */
    public static final int FI_TYPE_PROGRESS = 11;
    /** fi_tostr type: protocol. */
    public static final int FI_TYPE_PROTOCOL = 12;
    /** fi_tostr type: message order. */
    public static final int FI_TYPE_MSG_ORDER = 13;
    /** fi_tostr type: mode bits. */
    public static final int FI_TYPE_MODE = 14;
    /** fi_tostr type: AV type. */
    public static final int FI_TYPE_AV_TYPE = 15;
    /** fi_tostr type: atomic datatype. */
    public static final int FI_TYPE_ATOMIC_TYPE = 16;
    /** fi_tostr type: atomic operation. */
    public static final int FI_TYPE_ATOMIC_OP = 17;
    /** fi_tostr type: version. */
    public static final int FI_TYPE_VERSION = 18;
    /** fi_tostr type: EQ event. */
    public static final int FI_TYPE_EQ_EVENT = 19;
    /** fi_tostr type: CQ event flags. */
    public static final int FI_TYPE_CQ_EVENT_FLAGS = 20;
    /** fi_tostr type: MR mode. */
    public static final int FI_TYPE_MR_MODE = 21;
    /** fi_tostr type: triggered operation type. */
    public static final int FI_TYPE_OP_TYPE = 22;
    /** fi_tostr type: fid. */
    public static final int FI_TYPE_FID = 23;
    /** fi_tostr type: collective operation. */
    public static final int FI_TYPE_COLLECTIVE_OP = 24;
    /** fi_tostr type: HMEM interface. */
    public static final int FI_TYPE_HMEM_IFACE = 25;
    /** fi_tostr type: CQ format. */
    public static final int FI_TYPE_CQ_FORMAT = 26;
    /** fi_tostr type: log level. */
    public static final int FI_TYPE_LOG_LEVEL = 27;
    /** fi_tostr type: log subsystem. */
    public static final int FI_TYPE_LOG_SUBSYS = 28;
    /** fi_tostr type: AV attributes (added after 1.17, in 1.20). */
    public static final int FI_TYPE_AV_ATTR = 29;
    /** fi_tostr type: CQ attributes (added after 1.17, in 1.20). */
    public static final int FI_TYPE_CQ_ATTR = 30;
    /** fi_tostr type: MR attributes (added after 1.17, in 1.20). */
    public static final int FI_TYPE_MR_ATTR = 31;
    /** fi_tostr type: counter attributes (added after 1.17, in 1.20). */
    public static final int FI_TYPE_CNTR_ATTR = 32;
    /** fi_tostr type: CQ error entry (added after 1.17, in 1.20). */
    public static final int FI_TYPE_CQ_ERR_ENTRY = 33;

    /** fi_getparams type: string. */
    public static final int FI_PARAM_STRING = 0;
    /** fi_getparams type: int. */
    public static final int FI_PARAM_INT = 1;
    /** fi_getparams type: boolean. */
    public static final int FI_PARAM_BOOL = 2;
    /** fi_getparams type: size_t. */
    public static final int FI_PARAM_SIZE_T = 3;

    // =====================================================================================
    // Wait objects, EQ events, CQ formats, counters (fi_eq.h)
    // =====================================================================================

    /** Wait object: none, the queue can only be polled. */
    public static final int FI_WAIT_NONE = 0;
    /** Wait object: provider's choice. */
    public static final int FI_WAIT_UNSPEC = 1;
    /** Wait object: a wait set. */
    public static final int FI_WAIT_SET = 2;
    /** Wait object: a file descriptor. */
    public static final int FI_WAIT_FD = 3;
    /** Wait object: a mutex and condition variable. */
    public static final int FI_WAIT_MUTEX_COND = 4;
    /** Wait object: waiting threads yield (spin). */
    public static final int FI_WAIT_YIELD = 5;
    /** Wait object: a set of file descriptors to poll. */
    public static final int FI_WAIT_POLLFD = 6;

    /** EQ event: notification (e.g. an asynchronous error or application event). */
    public static final int FI_NOTIFY = 0;
    /** EQ event: connection request on a passive endpoint. */
    public static final int FI_CONNREQ = 1;
    /** EQ event: connection established. */
    public static final int FI_CONNECTED = 2;
    /** EQ event: connection shut down. */
    public static final int FI_SHUTDOWN = 3;
    /** EQ event: asynchronous memory registration completed. */
    public static final int FI_MR_COMPLETE = 4;
    /** EQ event: asynchronous AV insertion completed. */
    public static final int FI_AV_COMPLETE = 5;
    /** EQ event: multicast join completed. */
    public static final int FI_JOIN_COMPLETE = 6;

    /** CQ format: provider's choice. */
    public static final int FI_CQ_FORMAT_UNSPEC = 0;
    /** CQ format: context only. */
    public static final int FI_CQ_FORMAT_CONTEXT = 1;
    /** CQ format: context, flags, length. */
    public static final int FI_CQ_FORMAT_MSG = 2;
    /** CQ format: MSG plus buffer and remote CQ data. */
    public static final int FI_CQ_FORMAT_DATA = 3;
    /** CQ format: DATA plus tag. */
    public static final int FI_CQ_FORMAT_TAGGED = 4;

    /** CQ wait condition: none. */
    public static final int FI_CQ_COND_NONE = 0;
    /** CQ wait condition: wait for a threshold of entries. */
    public static final int FI_CQ_COND_THRESHOLD = 1;

    /** Counter events: count completions. */
    public static final int FI_CNTR_EVENTS_COMP = 0;

    // =====================================================================================
    // Endpoint options (fi_endpoint.h)
    // =====================================================================================

    /** Option level: endpoint. */
    public static final int FI_OPT_ENDPOINT = 0;

    /** Endpoint option: minimum free space left in a multi-receive buffer ({@code size_t}). */
    public static final int FI_OPT_MIN_MULTI_RECV = 0;
    /** Endpoint option: connection data size ({@code size_t}). */
    public static final int FI_OPT_CM_DATA_SIZE = 1;
    /** Endpoint option: buffered-receive minimum ({@code size_t}). */
    public static final int FI_OPT_BUFFERED_MIN = 2;
    /** Endpoint option: buffered-receive limit ({@code size_t}). */
    public static final int FI_OPT_BUFFERED_LIMIT = 3;
    /** Endpoint option: send buffer size ({@code size_t}). */
    public static final int FI_OPT_SEND_BUF_SIZE = 4;
    /** Endpoint option: receive buffer size ({@code size_t}). */
    public static final int FI_OPT_RECV_BUF_SIZE = 5;
    /** Endpoint option: transmit queue size ({@code size_t}). */
    public static final int FI_OPT_TX_SIZE = 6;
    /** Endpoint option: receive queue size ({@code size_t}). */
    public static final int FI_OPT_RX_SIZE = 7;
    /** Endpoint option: peer-to-peer use for device memory ({@code int}, FI_HMEM_P2P_*). */
    public static final int FI_OPT_FI_HMEM_P2P = 8;
    /** Endpoint option: XPU trigger ({@code struct fi_trigger_xpu}). */
    public static final int FI_OPT_XPU_TRIGGER = 9;
    /** Endpoint option: whether the provider may call the CUDA API ({@code bool}; added in libfabric 1.18). */
    public static final int FI_OPT_CUDA_API_PERMITTED = 10;

    /** FI_OPT_FI_HMEM_P2P value: provider decides (default). */
    public static final int FI_HMEM_P2P_ENABLED = 0;
    /** FI_OPT_FI_HMEM_P2P value: peer-to-peer required. */
    public static final int FI_HMEM_P2P_REQUIRED = 1;
    /** FI_OPT_FI_HMEM_P2P value: peer-to-peer preferred. */
    public static final int FI_HMEM_P2P_PREFERRED = 2;
    /** FI_OPT_FI_HMEM_P2P value: peer-to-peer disabled. */
    public static final int FI_HMEM_P2P_DISABLED = 3;

    // =====================================================================================
    // Address vectors, memory registration, atomics, collectives (fi_domain.h)
    // =====================================================================================

    /** AV insert flag: symmetric addressing across processes. */
    public static final long FI_SYMMETRIC = 1L << 59;
    /** AV insert flag: report per-address errors synchronously. */
    public static final long FI_SYNC_ERR = 1L << 58;
    /** AV set flag: the set spans the whole universe. */
    public static final long FI_UNIVERSE = 1L << 57;
    /** AV set flag: usable for barrier. */
    public static final long FI_BARRIER_SET = 1L << 40;
    /** AV set flag: usable for broadcast. */
    public static final long FI_BROADCAST_SET = 1L << 41;
    /** AV set flag: usable for all-to-all. */
    public static final long FI_ALLTOALL_SET = 1L << 42;
    /** AV set flag: usable for all-reduce. */
    public static final long FI_ALLREDUCE_SET = 1L << 43;
    /** AV set flag: usable for all-gather. */
    public static final long FI_ALLGATHER_SET = 1L << 44;
    /** AV set flag: usable for reduce-scatter. */
    public static final long FI_REDUCE_SCATTER_SET = 1L << 45;
    /** AV set flag: usable for reduce. */
    public static final long FI_REDUCE_SET = 1L << 46;
    /** AV set flag: usable for scatter. */
    public static final long FI_SCATTER_SET = 1L << 47;
    /** AV set flag: usable for gather. */
    public static final long FI_GATHER_SET = 1L << 48;

    /** Domain bind flag: memory registrations complete through the bound EQ (same bit as {@link #FI_DIRECTED_RECV}). */
    public static final long FI_REG_MR = 1L << 59;

    /** HMEM interface: host memory. */
    public static final int FI_HMEM_SYSTEM = 0;
    /** HMEM interface: NVIDIA CUDA. */
    public static final int FI_HMEM_CUDA = 1;
    /** HMEM interface: AMD ROCr. */
    public static final int FI_HMEM_ROCR = 2;
    /** HMEM interface: Intel Level Zero. */
    public static final int FI_HMEM_ZE = 3;
    /** HMEM interface: AWS Neuron. */
    public static final int FI_HMEM_NEURON = 4;
    /** HMEM interface: Habana SynapseAI. */
    public static final int FI_HMEM_SYNAPSEAI = 5;

    /** fi_set_ops name of the HMEM override operations. */
    public static final String FI_SET_OPS_HMEM_OVERRIDE = "hmem_override_ops";

    /** First value of the collective-only datatypes and operations. */
    public static final int FI_COLLECTIVE_OFFSET = 256;

    /** Atomic datatype: signed 8-bit integer. */
    public static final int FI_INT8 = 0;
    /** Atomic datatype: unsigned 8-bit integer. */
    public static final int FI_UINT8 = 1;
    /** Atomic datatype: signed 16-bit integer. */
    public static final int FI_INT16 = 2;
    /** Atomic datatype: unsigned 16-bit integer. */
    public static final int FI_UINT16 = 3;
    /** Atomic datatype: signed 32-bit integer. */
    public static final int FI_INT32 = 4;
    /** Atomic datatype: unsigned 32-bit integer. */
    public static final int FI_UINT32 = 5;
    /** Atomic datatype: signed 64-bit integer. */
    public static final int FI_INT64 = 6;
    /** Atomic datatype: unsigned 64-bit integer. */
    public static final int FI_UINT64 = 7;
    /** Atomic datatype: float. */
    public static final int FI_FLOAT = 8;
    /** Atomic datatype: double. */
    public static final int FI_DOUBLE = 9;
    /** Atomic datatype: float complex. */
    public static final int FI_FLOAT_COMPLEX = 10;
    /** Atomic datatype: double complex. */
    public static final int FI_DOUBLE_COMPLEX = 11;
    /** Atomic datatype: long double. */
    public static final int FI_LONG_DOUBLE = 12;
    /** Atomic datatype: long double complex. */
    public static final int FI_LONG_DOUBLE_COMPLEX = 13;
    /** End of the original point-to-point atomic datatypes. */
    public static final int FI_DATATYPE_LAST = 14;
    /** Atomic datatype: signed 128-bit integer (takes the value of FI_DATATYPE_LAST). */
    public static final int FI_INT128 = 14;
    /** Atomic datatype: unsigned 128-bit integer. */
    public static final int FI_UINT128 = 15;
    /** Collective datatype: no data (barrier). */
    public static final int FI_VOID = FI_COLLECTIVE_OFFSET;

    /** Atomic operation: minimum. */
    public static final int FI_MIN = 0;
    /** Atomic operation: maximum. */
    public static final int FI_MAX = 1;
    /** Atomic operation: sum. */
    public static final int FI_SUM = 2;
    /** Atomic operation: product. */
    public static final int FI_PROD = 3;
    /** Atomic operation: logical or. */
    public static final int FI_LOR = 4;
    /** Atomic operation: logical and. */
    public static final int FI_LAND = 5;
    /** Atomic operation: bitwise or. */
    public static final int FI_BOR = 6;
    /** Atomic operation: bitwise and. */
    public static final int FI_BAND = 7;
    /** Atomic operation: logical exclusive or. */
    public static final int FI_LXOR = 8;
    /** Atomic operation: bitwise exclusive or. */
    public static final int FI_BXOR = 9;
    /** Atomic operation: read the target. */
    public static final int FI_ATOMIC_READ = 10;
    /** Atomic operation: write the target. */
    public static final int FI_ATOMIC_WRITE = 11;
    /** Atomic operation: compare and swap if equal. */
    public static final int FI_CSWAP = 12;
    /** Atomic operation: compare and swap if not equal. */
    public static final int FI_CSWAP_NE = 13;
    /** Atomic operation: compare and swap if compare value is less than or equal to the target. */
    public static final int FI_CSWAP_LE = 14;
    /** Atomic operation: compare and swap if compare value is less than the target. */
    public static final int FI_CSWAP_LT = 15;
    /** Atomic operation: compare and swap if compare value is greater than or equal to the target. */
    public static final int FI_CSWAP_GE = 16;
    /** Atomic operation: compare and swap if compare value is greater than the target. */
    public static final int FI_CSWAP_GT = 17;
    /** Atomic operation: masked swap. */
    public static final int FI_MSWAP = 18;
    /** End of the point-to-point atomic operations. */
    public static final int FI_ATOMIC_OP_LAST = 19;
    /** Collective operation code: no operation. */
    public static final int FI_NOOP = FI_COLLECTIVE_OFFSET;

    /** Collective: barrier. */
    public static final int FI_BARRIER = 0;
    /** Collective: broadcast. */
    public static final int FI_BROADCAST = 1;
    /** Collective: all-to-all. */
    public static final int FI_ALLTOALL = 2;
    /** Collective: all-reduce. */
    public static final int FI_ALLREDUCE = 3;
    /** Collective: all-gather. */
    public static final int FI_ALLGATHER = 4;
    /** Collective: reduce-scatter. */
    public static final int FI_REDUCE_SCATTER = 5;
    /** Collective: reduce. */
    public static final int FI_REDUCE = 6;
    /** Collective: scatter. */
    public static final int FI_SCATTER = 7;
    /** Collective: gather. */
    public static final int FI_GATHER = 8;

    // =====================================================================================
    // Atomic query flags (fi_atomic.h)
    // =====================================================================================

    /** fi_query_atomic flag: ask about fetch-atomic operations. */
    public static final long FI_FETCH_ATOMIC = 1L << 58;
    /** fi_query_atomic flag: ask about compare-atomic operations. */
    public static final long FI_COMPARE_ATOMIC = 1L << 59;

    // =====================================================================================
    // Triggered operations (fi_trigger.h)
    // =====================================================================================

    /** Trigger event: a counter reaches a threshold. */
    public static final int FI_TRIGGER_THRESHOLD = 0;
    /** Trigger event: an XPU (device) signal. */
    public static final int FI_TRIGGER_XPU = 1;

    /** Deferred operation type: receive. */
    public static final int FI_OP_RECV = 0;
    /** Deferred operation type: send. */
    public static final int FI_OP_SEND = 1;
    /** Deferred operation type: tagged receive. */
    public static final int FI_OP_TRECV = 2;
    /** Deferred operation type: tagged send. */
    public static final int FI_OP_TSEND = 3;
    /** Deferred operation type: RMA read. */
    public static final int FI_OP_READ = 4;
    /** Deferred operation type: RMA write. */
    public static final int FI_OP_WRITE = 5;
    /** Deferred operation type: atomic. */
    public static final int FI_OP_ATOMIC = 6;
    /** Deferred operation type: fetch atomic. */
    public static final int FI_OP_FETCH_ATOMIC = 7;
    /** Deferred operation type: compare atomic. */
    public static final int FI_OP_COMPARE_ATOMIC = 8;
    /** Deferred operation type: set a counter. */
    public static final int FI_OP_CNTR_SET = 9;
    /** Deferred operation type: add to a counter. */
    public static final int FI_OP_CNTR_ADD = 10;

    // =====================================================================================
    // Capability masks (libfabric's internal ofi.h / ofi_util.h, fi_getinfo(3))
    // =====================================================================================

    /**
     * Primary capabilities and their modifiers (fi_getinfo(3)): an application must ask for
     * them, a provider enables only those asked for. MSG, RMA, TAGGED, ATOMIC, MULTICAST,
     * COLLECTIVE, NAMED_RX_CTX, DIRECTED_RECV, VARIABLE_MSG, HMEM, AV_USER_ID, PEER and the
     * modifiers READ, WRITE, RECV, SEND, REMOTE_READ, REMOTE_WRITE.
     */
    public static final long FI_PRIMARY_CAPS = FI_MSG | FI_RMA | FI_TAGGED | FI_ATOMIC | FI_MULTICAST
            | FI_COLLECTIVE | FI_NAMED_RX_CTX | FI_DIRECTED_RECV | FI_VARIABLE_MSG | FI_HMEM
            | FI_AV_USER_ID | FI_PEER
            | FI_READ | FI_WRITE | FI_RECV | FI_SEND | FI_REMOTE_READ | FI_REMOTE_WRITE;

    /**
     * Secondary capabilities (fi_getinfo(3)): optional to ask for, a provider may report them
     * unasked. MULTI_RECV, SOURCE, RMA_EVENT, SHARED_AV, TRIGGER, FENCE, LOCAL_COMM,
     * REMOTE_COMM, SOURCE_ERR, RMA_PMEM.
     */
    public static final long FI_SECONDARY_CAPS = FI_MULTI_RECV | FI_SOURCE | FI_RMA_EVENT | FI_SHARED_AV
            | FI_TRIGGER | FI_FENCE | FI_LOCAL_COMM | FI_REMOTE_COMM | FI_SOURCE_ERR | FI_RMA_PMEM;

    // =====================================================================================
    // Capability names
    // =====================================================================================

    /** Names of the capability bits, in ascending bit order (same order as CAP_VALUES). */
    private static final String[] CAP_NAMES = {
        "FI_MSG", "FI_RMA", "FI_TAGGED", "FI_ATOMIC", "FI_MULTICAST", "FI_COLLECTIVE",
        "FI_READ", "FI_WRITE", "FI_RECV", "FI_SEND", "FI_REMOTE_READ", "FI_REMOTE_WRITE",
        "FI_MULTI_RECV", "FI_TRIGGER", "FI_FENCE",
        "FI_AV_USER_ID", "FI_PEER",
        "FI_HMEM", "FI_VARIABLE_MSG", "FI_RMA_PMEM", "FI_SOURCE_ERR", "FI_LOCAL_COMM",
        "FI_REMOTE_COMM", "FI_SHARED_AV", "FI_RMA_EVENT", "FI_SOURCE", "FI_NAMED_RX_CTX",
        "FI_DIRECTED_RECV",
    };

    /** Values of the capability bits, parallel to CAP_NAMES. */
    private static final long[] CAP_VALUES = {
        FI_MSG, FI_RMA, FI_TAGGED, FI_ATOMIC, FI_MULTICAST, FI_COLLECTIVE,
        FI_READ, FI_WRITE, FI_RECV, FI_SEND, FI_REMOTE_READ, FI_REMOTE_WRITE,
        FI_MULTI_RECV, FI_TRIGGER, FI_FENCE,
        FI_AV_USER_ID, FI_PEER,
        FI_HMEM, FI_VARIABLE_MSG, FI_RMA_PMEM, FI_SOURCE_ERR, FI_LOCAL_COMM,
        FI_REMOTE_COMM, FI_SHARED_AV, FI_RMA_EVENT, FI_SOURCE, FI_NAMED_RX_CTX,
        FI_DIRECTED_RECV,
    };

    /** Other accepted spellings when parsing (libfabric aliases), parallel to ALIAS_VALUES. */
    private static final String[] ALIAS_NAMES = {"FI_ATOMICS", "FI_TRANSMIT"};

    /** Values of the aliases, parallel to ALIAS_NAMES. */
    private static final long[] ALIAS_VALUES = {FI_ATOMICS, FI_TRANSMIT};

    /**
     * Renders capability bits the way libfabric's {@code fi_tostr(FI_TYPE_CAPS)} names them,
     * joined with {@code " | "} in ascending bit order, e.g. {@code "FI_MSG | FI_TAGGED"}.
     * Bits that are not primary or secondary capabilities are rendered together as one hex
     * number ({@code 0x...}) at the end; {@code 0} renders as {@code "0"}. The result is
     * accepted by {@link #parseCaps(String)}.
     */
    public static String capsToString(long caps) {
        if (caps == 0) {
            return "0";
        }
        StringBuilder sb = new StringBuilder();
        long rest = caps;
        for (int i = 0; i < CAP_VALUES.length; i++) {
            long bit = CAP_VALUES[i];
            if ((caps & bit) != 0) {
                if (sb.length() > 0) {
                    sb.append(" | ");
                }
                sb.append(CAP_NAMES[i]);
                rest &= ~bit;
            }
        }
        if (rest != 0) {
            if (sb.length() > 0) {
                sb.append(" | ");
            }
            sb.append("0x").append(Long.toHexString(rest));
        }
        return sb.toString();
    }

    /**
     * Renders {@code mode} bits ({@code FI_CONTEXT}, {@code FI_LOCAL_MR}, ...) by their libfabric
     * names joined with {@code " | "}, as {@link #capsToString(long)} does for capabilities;
     * unnamed bits in hex; {@code 0} as {@code "0"}. For messages that name a mode.
     */
    public static String modeToString(long mode) {
        return joined(AttrFormat.mode(mode));
    }

    /**
     * Renders operation flags ({@code FI_COMPLETION}, {@code FI_INJECT}, ...) by name, joined with
     * {@code " | "}; {@code 0} as {@code "0"}.
     */
    public static String opFlagsToString(long flags) {
        return joined(AttrFormat.opFlags(flags));
    }

    /**
     * Renders message/completion ordering bits ({@code FI_ORDER_SAS}, {@code FI_ORDER_DATA}, ...)
     * by name, joined with {@code " | "}; {@code 0} as {@code "0"}.
     */
    public static String orderToString(long order) {
        return joined(AttrFormat.msgOrder(order));
    }

    /**
     * Renders memory-registration mode bits ({@code FI_MR_LOCAL}, {@code FI_MR_PROV_KEY}, ...) by
     * name, joined with {@code " | "}; {@code 0} as {@code "0"}.
     */
    public static String mrModeToString(long mrMode) {
        return joined(AttrFormat.mrMode(mrMode));
    }

    /** {@code "[ A, B ]"} (the fi_tostr form) to {@code "A | B"}; {@code "[ ]"} to {@code "0"}. */
    private static String joined(String bracketed) {
        String inner = bracketed.substring(1, bracketed.length() - 1).trim();
        return inner.isEmpty() ? "0" : inner.replace(", ", " | ");
    }

    /**
     * Parses capability names into bits: {@code "FI_MSG|FI_TAGGED"}, {@code "msg, tagged"},
     * {@code "Msg Tagged"} ... Names are case-insensitive, with or without the {@code FI_}
     * prefix, separated by {@code |}, {@code ,} and/or white space; {@code FI_ATOMICS} and
     * {@code FI_TRANSMIT} are accepted as the aliases libfabric defines, and hex
     * ({@code 0x...}) or decimal numbers as raw bits. A blank string is {@code 0}.
     *
     * @throws IllegalArgumentException naming the first token that is not a capability
     */
    public static long parseCaps(String s) {
        if (s == null) {
            throw new IllegalArgumentException("capabilities: null");
        }
        long caps = 0;
        int n = s.length();
        int i = 0;
        while (i < n) {
            char c = s.charAt(i);
            if (c == '|' || c == ',' || Character.isWhitespace(c)) {
                i++;
                continue;
            }
            int start = i;
            while (i < n) {
                c = s.charAt(i);
                if (c == '|' || c == ',' || Character.isWhitespace(c)) {
                    break;
                }
                i++;
            }
            caps |= parseCapToken(s.substring(start, i), s);
        }
        return caps;
    }

    private static long parseCapToken(String token, String whole) {
        String t = token.toUpperCase(Locale.ROOT);
        if (t.startsWith("0X")) {
            try {
                return Long.parseUnsignedLong(t.substring(2), 16);
            } catch (NumberFormatException e) {
                throw unknownCap(token, whole);
            }
        }
        if (Character.isDigit(t.charAt(0))) {
            try {
                return Long.parseUnsignedLong(t);
            } catch (NumberFormatException e) {
                throw unknownCap(token, whole);
            }
        }
        String name = t.startsWith("FI_") ? t : "FI_" + t;
        for (int k = 0; k < CAP_NAMES.length; k++) {
            if (CAP_NAMES[k].equals(name)) {
                return CAP_VALUES[k];
            }
        }
        for (int k = 0; k < ALIAS_NAMES.length; k++) {
            if (ALIAS_NAMES[k].equals(name)) {
                return ALIAS_VALUES[k];
            }
        }
        throw unknownCap(token, whole);
    }

    private static IllegalArgumentException unknownCap(String token, String whole) {
        return new IllegalArgumentException("unknown capability '" + token + "' in \"" + whole + "\"");
    }
}
