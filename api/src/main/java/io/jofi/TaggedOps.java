package io.jofi;

import java.nio.ByteBuffer;
import org.osgi.annotation.versioning.ProviderType;

/** Tagged message operations (fi_tagged(3)): a receive matches when {@code (tag ^ sent) & ~ignore == 0}. */
@ProviderType
public interface TaggedOps {
    int trecv(ByteBuffer buf, MemoryRegion desc, long srcAddr, long tag, long ignore, Object context);

    int tsend(ByteBuffer buf, MemoryRegion desc, long destAddr, long tag, Object context);

    int tsendData(ByteBuffer buf, MemoryRegion desc, long data, long destAddr, long tag, Object context);

    int tinject(ByteBuffer buf, long destAddr, long tag);

    /** flags: {@code FI_PEEK}, {@code FI_CLAIM}, {@code FI_DISCARD}, ... */
    int trecvMsg(TaggedMsg msg, long flags);

    int tsendMsg(TaggedMsg msg, long flags);
}
