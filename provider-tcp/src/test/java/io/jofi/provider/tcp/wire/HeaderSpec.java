package io.jofi.provider.tcp.wire;

import java.util.List;

/**
 * The fields of one valid message header, as the property tests generate them; builds the
 * {@link MessageHeader} that encodes it and checks a decoded one against it.
 */
record HeaderSpec(int op, int flags, int rmaIovCount, int opData, int id, long cqData, long tag,
                  List<Long> iovWords, long payloadLength) {

    /** Whether this spec fits the 120-byte header limit (tag + CQ data + 4 descriptors does not). */
    boolean fits() {
        return TcpWireDescriptor.headerLength(op, flags, rmaIovCount) <= TcpWireDescriptor.MAX_HEADER_LENGTH;
        // (the 3-argument length: an ack's extensions are dropped by encode, but the holder must accept them)
    }

    /** Sets {@code header} to this spec. */
    MessageHeader applyTo(final MessageHeader header) {
        header.clear().op(op).flags(flags).opData(opData).id(id).tag(tag).rmaIovCount(rmaIovCount);
        if ((flags & TcpWireDescriptor.FLAG_REMOTE_CQ_DATA) != 0) {
            header.cqData(cqData);
        }
        for (int i = 0; i < rmaIovCount; i++) {
            header.rmaIov(i, iovWords.get(3 * i), iovWords.get(3 * i + 1), iovWords.get(3 * i + 2));
        }
        return header.payloadLength(payloadLength);
    }

    /**
     * The descriptors that travel: {@link #rmaIovCount} for an op that has them, else 0 (a
     * message's count is stale and ignored, {@link TcpWireDescriptor#usesRmaIovs}).
     */
    int descriptors() {
        return TcpWireDescriptor.usesRmaIovs(op, opData) ? rmaIovCount : 0;
    }

    /** Describes how {@code decoded} differs from this spec, or returns null if it matches. */
    String mismatch(final MessageHeader decoded) {
        final int hdrSize = TcpWireDescriptor.headerLength(op, flags, rmaIovCount, opData);
        final boolean bare = TcpWireDescriptor.isBare(op, opData);
        if (decoded.op() != op || decoded.flags() != flags || decoded.opData() != opData
            || decoded.id() != (id & 0xFF) || decoded.rmaIovCount() != descriptors()
            || decoded.hdrSize() != hdrSize || decoded.payloadLength() != payloadLength
            || decoded.size() != hdrSize + payloadLength || decoded.version() != TcpWireDescriptor.VERSION) {
            return "base header " + decoded + " for " + this;
        }
        if (!bare && TcpWireDescriptor.hasCqData(op, flags) && decoded.cqData() != cqData) {
            return "cq data " + decoded.cqData() + " for " + this;
        }
        if (!bare && TcpWireDescriptor.hasTag(op, flags) && decoded.tag() != tag) {
            return "tag " + decoded.tag() + " for " + this;
        }
        final int iovs = descriptors();
        for (int i = 0; i < iovs; i++) {
            if (decoded.rmaAddr(i) != iovWords.get(3 * i) || decoded.rmaLen(i) != iovWords.get(3 * i + 1)
                || decoded.rmaKey(i) != iovWords.get(3 * i + 2)) {
                return "rma iov " + i + " of " + decoded + " for " + this;
            }
        }
        return null;
    }
}
