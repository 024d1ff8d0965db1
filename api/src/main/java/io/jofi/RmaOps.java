package io.jofi;

import java.nio.ByteBuffer;
import org.osgi.annotation.versioning.ProviderType;

/** RMA operations (fi_rma(3)); {@code addr} is the peer's {@code MemoryRegion.address()} plus an offset. */
@ProviderType
public interface RmaOps {
    int read(ByteBuffer buf, MemoryRegion desc, long srcAddr, long addr, long key, Object context);

    int write(ByteBuffer buf, MemoryRegion desc, long destAddr, long addr, long key, Object context);

    int writeData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long addr, long key, Object context);

    int injectWrite(ByteBuffer buf, long destAddr, long addr, long key);

    int readMsg(RmaMsg msg, long flags);

    int writeMsg(RmaMsg msg, long flags);
}
