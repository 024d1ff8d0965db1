package io.jofi.provider.verbs.binding;

import java.util.Map;
import java.util.LinkedHashMap;
import java.util.Collections;

/**
 * The enum and flag values of {@code verbs.h} and {@code rdma_cma.h} the binding passes or
 * decodes. The ABI check test prints each one from the real headers and compares.
 */
public final class VerbsConstants {
    /** {@code IBV_WR_RDMA_WRITE}: work request opcode: RDMA write. */
    public static final int IBV_WR_RDMA_WRITE = 0;
    /** {@code IBV_WR_RDMA_WRITE_WITH_IMM}: work request opcode: RDMA write with immediate data (FI_REMOTE_CQ_DATA at the target). */
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    /** {@code IBV_WR_SEND}: work request opcode: send. */
    public static final int IBV_WR_SEND = 2;
    /** {@code IBV_WR_SEND_WITH_IMM}: work request opcode: send with immediate data. */
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    /** {@code IBV_WR_RDMA_READ}: work request opcode: RDMA read. */
    public static final int IBV_WR_RDMA_READ = 4;
    /** {@code IBV_WR_ATOMIC_CMP_AND_SWP}: work request opcode: 64-bit compare-and-swap. */
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    /** {@code IBV_WR_ATOMIC_FETCH_AND_ADD}: work request opcode: 64-bit fetch-and-add. */
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;
    /** {@code IBV_SEND_FENCE}: send flag: wait for earlier RDMA reads/atomics. */
    public static final int IBV_SEND_FENCE = 1;
    /** {@code IBV_SEND_SIGNALED}: send flag: generate a work completion. */
    public static final int IBV_SEND_SIGNALED = 2;
    /** {@code IBV_SEND_SOLICITED}: send flag: solicited event at the target. */
    public static final int IBV_SEND_SOLICITED = 4;
    /** {@code IBV_SEND_INLINE}: send flag: copy the data into the work request (inject). */
    public static final int IBV_SEND_INLINE = 8;
    /** {@code IBV_WC_SUCCESS}: work completion status: success. */
    public static final int IBV_WC_SUCCESS = 0;
    /** {@code IBV_WC_LOC_LEN_ERR}: work completion status: local length error (a receive too small: ETRUNC). */
    public static final int IBV_WC_LOC_LEN_ERR = 1;
    /** {@code IBV_WC_LOC_PROT_ERR}: work completion status: local protection error. */
    public static final int IBV_WC_LOC_PROT_ERR = 4;
    /** {@code IBV_WC_WR_FLUSH_ERR}: work completion status: flushed (queue pair in error state: ECANCELED). */
    public static final int IBV_WC_WR_FLUSH_ERR = 5;
    /** {@code IBV_WC_REM_ACCESS_ERR}: work completion status: remote access error. */
    public static final int IBV_WC_REM_ACCESS_ERR = 10;
    /** {@code IBV_WC_RETRY_EXC_ERR}: work completion status: transport retries exceeded. */
    public static final int IBV_WC_RETRY_EXC_ERR = 12;
    /** {@code IBV_WC_RNR_RETRY_EXC_ERR}: work completion status: the peer posted no receive within the RNR retries. */
    public static final int IBV_WC_RNR_RETRY_EXC_ERR = 13;
    /** {@code IBV_WC_SEND}: work completion opcode: send. */
    public static final int IBV_WC_SEND = 0;
    /** {@code IBV_WC_RDMA_WRITE}: work completion opcode: RDMA write. */
    public static final int IBV_WC_RDMA_WRITE = 1;
    /** {@code IBV_WC_RDMA_READ}: work completion opcode: RDMA read. */
    public static final int IBV_WC_RDMA_READ = 2;
    /** {@code IBV_WC_COMP_SWAP}: work completion opcode: compare-and-swap. */
    public static final int IBV_WC_COMP_SWAP = 3;
    /** {@code IBV_WC_FETCH_ADD}: work completion opcode: fetch-and-add. */
    public static final int IBV_WC_FETCH_ADD = 4;
    /** {@code IBV_WC_RECV}: work completion opcode: receive. */
    public static final int IBV_WC_RECV = 128;
    /** {@code IBV_WC_RECV_RDMA_WITH_IMM}: work completion opcode: RDMA write with immediate consumed a receive. */
    public static final int IBV_WC_RECV_RDMA_WITH_IMM = 129;
    /** {@code IBV_WC_WITH_IMM}: work completion flag: imm_data is valid. */
    public static final int IBV_WC_WITH_IMM = 2;
    /** {@code IBV_ACCESS_LOCAL_WRITE}: access flag: the device may write the region (receives, read results). */
    public static final int IBV_ACCESS_LOCAL_WRITE = 1;
    /** {@code IBV_ACCESS_REMOTE_WRITE}: access flag: peers may RDMA-write the region. */
    public static final int IBV_ACCESS_REMOTE_WRITE = 2;
    /** {@code IBV_ACCESS_REMOTE_READ}: access flag: peers may RDMA-read the region. */
    public static final int IBV_ACCESS_REMOTE_READ = 4;
    /** {@code IBV_ACCESS_REMOTE_ATOMIC}: access flag: peers may run atomics on the region. */
    public static final int IBV_ACCESS_REMOTE_ATOMIC = 8;
    /** {@code IBV_QPT_RC}: queue pair type: reliable connected. */
    public static final int IBV_QPT_RC = 2;
    /** {@code IBV_PORT_ACTIVE}: port state: active. */
    public static final int IBV_PORT_ACTIVE = 4;
    /** {@code IBV_TRANSPORT_IB}: transport: InfiniBand or RoCE. */
    public static final int IBV_TRANSPORT_IB = 0;
    /** {@code IBV_TRANSPORT_IWARP}: transport: iWARP. */
    public static final int IBV_TRANSPORT_IWARP = 1;
    /** {@code IBV_LINK_LAYER_INFINIBAND}: link layer: InfiniBand. */
    public static final int IBV_LINK_LAYER_INFINIBAND = 1;
    /** {@code IBV_LINK_LAYER_ETHERNET}: link layer: Ethernet (RoCE). */
    public static final int IBV_LINK_LAYER_ETHERNET = 2;
    /** {@code IBV_ATOMIC_NONE}: atomic capability: none. */
    public static final int IBV_ATOMIC_NONE = 0;
    /** {@code RDMA_PS_TCP}: rdma_cm port space of reliable connected ids. */
    public static final int RDMA_PS_TCP = 0x106;
    /** {@code RDMA_CM_EVENT_ADDR_RESOLVED}: rdma_cm event. */
    public static final int RDMA_CM_EVENT_ADDR_RESOLVED = 0;
    /** {@code RDMA_CM_EVENT_ADDR_ERROR}: rdma_cm event. */
    public static final int RDMA_CM_EVENT_ADDR_ERROR = 1;
    /** {@code RDMA_CM_EVENT_ROUTE_RESOLVED}: rdma_cm event. */
    public static final int RDMA_CM_EVENT_ROUTE_RESOLVED = 2;
    /** {@code RDMA_CM_EVENT_ROUTE_ERROR}: rdma_cm event. */
    public static final int RDMA_CM_EVENT_ROUTE_ERROR = 3;
    /** {@code RDMA_CM_EVENT_CONNECT_REQUEST}: rdma_cm event. */
    public static final int RDMA_CM_EVENT_CONNECT_REQUEST = 4;
    /** {@code RDMA_CM_EVENT_CONNECT_RESPONSE}: rdma_cm event. */
    public static final int RDMA_CM_EVENT_CONNECT_RESPONSE = 5;
    /** {@code RDMA_CM_EVENT_CONNECT_ERROR}: rdma_cm event. */
    public static final int RDMA_CM_EVENT_CONNECT_ERROR = 6;
    /** {@code RDMA_CM_EVENT_UNREACHABLE}: rdma_cm event. */
    public static final int RDMA_CM_EVENT_UNREACHABLE = 7;
    /** {@code RDMA_CM_EVENT_REJECTED}: rdma_cm event. */
    public static final int RDMA_CM_EVENT_REJECTED = 8;
    /** {@code RDMA_CM_EVENT_ESTABLISHED}: rdma_cm event. */
    public static final int RDMA_CM_EVENT_ESTABLISHED = 9;
    /** {@code RDMA_CM_EVENT_DISCONNECTED}: rdma_cm event. */
    public static final int RDMA_CM_EVENT_DISCONNECTED = 10;
    /** {@code RDMA_CM_EVENT_DEVICE_REMOVAL}: rdma_cm event. */
    public static final int RDMA_CM_EVENT_DEVICE_REMOVAL = 11;
    /** {@code RDMA_CM_EVENT_ADDR_CHANGE}: rdma_cm event. */
    public static final int RDMA_CM_EVENT_ADDR_CHANGE = 14;
    /** {@code RDMA_CM_EVENT_TIMEWAIT_EXIT}: rdma_cm event. */
    public static final int RDMA_CM_EVENT_TIMEWAIT_EXIT = 15;

    /** {@code POLLIN}: poll(2) event: readable. */
    public static final int POLLIN = 1;
    /** {@code F_GETFL}: fcntl(2): get the file status flags. */
    public static final int F_GETFL = 3;
    /** {@code F_SETFL}: fcntl(2): set the file status flags. */
    public static final int F_SETFL = 4;
    /** {@code O_NONBLOCK}: file status flag: non-blocking. */
    public static final int O_NONBLOCK = 2048;
    /** {@code EAGAIN}: errno: try again. */
    public static final int EAGAIN = 11;

    /** {@code IBV_EVENT_QP_FATAL}: async event: the queue pair hit an error it cannot report in a completion. */
    public static final int IBV_EVENT_QP_FATAL = 1;
    /** {@code IBV_EVENT_QP_REQ_ERR}: async event: the peer's request violated the transport (invalid request). */
    public static final int IBV_EVENT_QP_REQ_ERR = 2;
    /** {@code IBV_EVENT_QP_ACCESS_ERR}: async event: a peer's RDMA access was refused (key, range, rights). */
    public static final int IBV_EVENT_QP_ACCESS_ERR = 3;
    /** {@code IBV_EVENT_DEVICE_FATAL}: async event: the device failed. */
    public static final int IBV_EVENT_DEVICE_FATAL = 8;

    /** Every constant above by its C name, for the ABI check. */
    public static final Map<String, Integer> ALL;

    static {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("IBV_WR_RDMA_WRITE", IBV_WR_RDMA_WRITE);
        m.put("IBV_WR_RDMA_WRITE_WITH_IMM", IBV_WR_RDMA_WRITE_WITH_IMM);
        m.put("IBV_WR_SEND", IBV_WR_SEND);
        m.put("IBV_WR_SEND_WITH_IMM", IBV_WR_SEND_WITH_IMM);
        m.put("IBV_WR_RDMA_READ", IBV_WR_RDMA_READ);
        m.put("IBV_WR_ATOMIC_CMP_AND_SWP", IBV_WR_ATOMIC_CMP_AND_SWP);
        m.put("IBV_WR_ATOMIC_FETCH_AND_ADD", IBV_WR_ATOMIC_FETCH_AND_ADD);
        m.put("IBV_SEND_FENCE", IBV_SEND_FENCE);
        m.put("IBV_SEND_SIGNALED", IBV_SEND_SIGNALED);
        m.put("IBV_SEND_SOLICITED", IBV_SEND_SOLICITED);
        m.put("IBV_SEND_INLINE", IBV_SEND_INLINE);
        m.put("IBV_WC_SUCCESS", IBV_WC_SUCCESS);
        m.put("IBV_WC_LOC_LEN_ERR", IBV_WC_LOC_LEN_ERR);
        m.put("IBV_WC_LOC_PROT_ERR", IBV_WC_LOC_PROT_ERR);
        m.put("IBV_WC_WR_FLUSH_ERR", IBV_WC_WR_FLUSH_ERR);
        m.put("IBV_WC_REM_ACCESS_ERR", IBV_WC_REM_ACCESS_ERR);
        m.put("IBV_WC_RETRY_EXC_ERR", IBV_WC_RETRY_EXC_ERR);
        m.put("IBV_WC_RNR_RETRY_EXC_ERR", IBV_WC_RNR_RETRY_EXC_ERR);
        m.put("IBV_WC_SEND", IBV_WC_SEND);
        m.put("IBV_WC_RDMA_WRITE", IBV_WC_RDMA_WRITE);
        m.put("IBV_WC_RDMA_READ", IBV_WC_RDMA_READ);
        m.put("IBV_WC_COMP_SWAP", IBV_WC_COMP_SWAP);
        m.put("IBV_WC_FETCH_ADD", IBV_WC_FETCH_ADD);
        m.put("IBV_WC_RECV", IBV_WC_RECV);
        m.put("IBV_WC_RECV_RDMA_WITH_IMM", IBV_WC_RECV_RDMA_WITH_IMM);
        m.put("IBV_WC_WITH_IMM", IBV_WC_WITH_IMM);
        m.put("IBV_ACCESS_LOCAL_WRITE", IBV_ACCESS_LOCAL_WRITE);
        m.put("IBV_ACCESS_REMOTE_WRITE", IBV_ACCESS_REMOTE_WRITE);
        m.put("IBV_ACCESS_REMOTE_READ", IBV_ACCESS_REMOTE_READ);
        m.put("IBV_ACCESS_REMOTE_ATOMIC", IBV_ACCESS_REMOTE_ATOMIC);
        m.put("IBV_QPT_RC", IBV_QPT_RC);
        m.put("IBV_PORT_ACTIVE", IBV_PORT_ACTIVE);
        m.put("IBV_TRANSPORT_IB", IBV_TRANSPORT_IB);
        m.put("IBV_TRANSPORT_IWARP", IBV_TRANSPORT_IWARP);
        m.put("IBV_LINK_LAYER_INFINIBAND", IBV_LINK_LAYER_INFINIBAND);
        m.put("IBV_LINK_LAYER_ETHERNET", IBV_LINK_LAYER_ETHERNET);
        m.put("IBV_ATOMIC_NONE", IBV_ATOMIC_NONE);
        m.put("RDMA_PS_TCP", RDMA_PS_TCP);
        m.put("RDMA_CM_EVENT_ADDR_RESOLVED", RDMA_CM_EVENT_ADDR_RESOLVED);
        m.put("RDMA_CM_EVENT_ADDR_ERROR", RDMA_CM_EVENT_ADDR_ERROR);
        m.put("RDMA_CM_EVENT_ROUTE_RESOLVED", RDMA_CM_EVENT_ROUTE_RESOLVED);
        m.put("RDMA_CM_EVENT_ROUTE_ERROR", RDMA_CM_EVENT_ROUTE_ERROR);
        m.put("RDMA_CM_EVENT_CONNECT_REQUEST", RDMA_CM_EVENT_CONNECT_REQUEST);
        m.put("RDMA_CM_EVENT_CONNECT_RESPONSE", RDMA_CM_EVENT_CONNECT_RESPONSE);
        m.put("RDMA_CM_EVENT_CONNECT_ERROR", RDMA_CM_EVENT_CONNECT_ERROR);
        m.put("RDMA_CM_EVENT_UNREACHABLE", RDMA_CM_EVENT_UNREACHABLE);
        m.put("RDMA_CM_EVENT_REJECTED", RDMA_CM_EVENT_REJECTED);
        m.put("RDMA_CM_EVENT_ESTABLISHED", RDMA_CM_EVENT_ESTABLISHED);
        m.put("RDMA_CM_EVENT_DISCONNECTED", RDMA_CM_EVENT_DISCONNECTED);
        m.put("RDMA_CM_EVENT_DEVICE_REMOVAL", RDMA_CM_EVENT_DEVICE_REMOVAL);
        m.put("RDMA_CM_EVENT_ADDR_CHANGE", RDMA_CM_EVENT_ADDR_CHANGE);
        m.put("RDMA_CM_EVENT_TIMEWAIT_EXIT", RDMA_CM_EVENT_TIMEWAIT_EXIT);
        m.put("POLLIN", POLLIN);
        m.put("F_GETFL", F_GETFL);
        m.put("F_SETFL", F_SETFL);
        m.put("O_NONBLOCK", O_NONBLOCK);
        m.put("EAGAIN", EAGAIN);
        m.put("IBV_EVENT_QP_FATAL", IBV_EVENT_QP_FATAL);
        m.put("IBV_EVENT_QP_REQ_ERR", IBV_EVENT_QP_REQ_ERR);
        m.put("IBV_EVENT_QP_ACCESS_ERR", IBV_EVENT_QP_ACCESS_ERR);
        m.put("IBV_EVENT_DEVICE_FATAL", IBV_EVENT_DEVICE_FATAL);
        ALL = Collections.unmodifiableMap(m);
    }

    private VerbsConstants() {
    }
}
