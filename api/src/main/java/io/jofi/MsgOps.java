package io.jofi;

import java.nio.ByteBuffer;
import org.osgi.annotation.versioning.ProviderType;

/** Message operations (fi_msg(3)). Buffers are {@code [position, limit)} and are never moved. */
@ProviderType
public interface MsgOps {
    int recv(ByteBuffer buf, MemoryRegion desc, long srcAddr, Object context);

    int send(ByteBuffer buf, MemoryRegion desc, long destAddr, Object context);

    /** Send with remote CQ data: the target's completion carries {@code FI_REMOTE_CQ_DATA}. */
    int sendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, Object context);

    /** Send that copies {@code buf} before returning and generates no completion. */
    int inject(ByteBuffer buf, long destAddr);

    int injectData(ByteBuffer buf, long data, long destAddr);

    /** flags: {@code FI_MULTI_RECV}, {@code FI_COMPLETION}, ... */
    int recvMsg(Msg msg, long flags);

    /** flags: {@code FI_REMOTE_CQ_DATA}, {@code FI_INJECT}, {@code FI_COMPLETION}, {@code FI_*_COMPLETE}, {@code FI_FENCE}, {@code FI_MORE}. */
    int sendMsg(Msg msg, long flags);
}
