package io.jofi.provider.verbs;

/**
 * An active port of an RDMA device, with the device limits the infos advertise.
 *
 * @param device        the device name ({@code ibv_get_device_name}, e.g. {@code rxe0}); the domain name
 * @param port          the port number (1-based)
 * @param iwarp         whether the device is an iWARP device (no immediate data on RDMA reads, etc.)
 * @param ethernet      whether the link layer is Ethernet (RoCE) rather than InfiniBand
 * @param maxQpWr       {@code max_qp_wr}: work requests per queue
 * @param maxSge        {@code max_sge}: SGEs per work request
 * @param maxCqe        {@code max_cqe}: entries per completion queue
 * @param maxMsgSize    {@code max_msg_sz} of the port
 * @param maxRdAtomic   {@code max_qp_rd_atom}: RDMA reads/atomics in flight per queue pair
 * @param atomics       whether the device offers atomics ({@code atomic_cap != IBV_ATOMIC_NONE})
 */
record ActivePort(String device, int port, boolean iwarp, boolean ethernet, int maxQpWr, int maxSge,
                  int maxCqe, long maxMsgSize, int maxRdAtomic, boolean atomics) {
}
