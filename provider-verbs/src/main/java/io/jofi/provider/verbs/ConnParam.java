package io.jofi.provider.verbs;

import io.jofi.provider.verbs.binding.NativeBlock;
import io.jofi.provider.verbs.binding.RdmaConnParamDescriptor;
import java.nio.ByteBuffer;

/**
 * The {@code struct rdma_conn_param} an endpoint passes to {@code rdma_connect} and
 * {@code rdma_accept}, in native memory it owns (MSG and RDM endpoints alike): the connection
 * data framed by {@link ConnData}, the RDMA read and atomic depths, and the retry counts.
 * Not thread-safe: the owning endpoint's monitor serialises it.
 */
final class ConnParam implements AutoCloseable {
    private final NativeBlock block = new NativeBlock(RdmaConnParamDescriptor.SIZE + ConnData.MAX_FRAME);

    /**
     * Writes the parameters with {@code data} ({@code null}: none) as private data and returns
     * their address. {@code readDepth}: peers' RDMA reads and atomics are answered
     * ({@link RmaSlots#readDepth}). Retry counts 7: the transport retries, and
     * {@code rnr_retry_count} 7 retries for ever while the peer has no receive posted — a send
     * is delivered once the peer posts one.
     */
    long write(byte[] data, boolean readDepth, ActivePort port) {
        ByteBuffer v = block.view();
        for (int i = 0; i < RdmaConnParamDescriptor.SIZE; i++) {
            v.put(i, (byte) 0);
        }
        int dataAt = RdmaConnParamDescriptor.SIZE;
        int n = ConnData.write(data, v, dataAt);
        v.putLong(RdmaConnParamDescriptor.PRIVATE_DATA, block.address(dataAt));
        v.put(RdmaConnParamDescriptor.PRIVATE_DATA_LEN, (byte) n);
        if (readDepth) {
            RmaSlots.readDepth(v, port);
        }
        v.put(RdmaConnParamDescriptor.RETRY_COUNT, (byte) 7);
        v.put(RdmaConnParamDescriptor.RNR_RETRY_COUNT, (byte) 7);
        return block.address();
    }

    /** The address of the parameters last written. */
    long address() {
        return block.address();
    }

    @Override
    public void close() {
        block.close();
    }
}
