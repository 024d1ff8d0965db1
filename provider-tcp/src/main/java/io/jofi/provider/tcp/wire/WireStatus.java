package io.jofi.provider.tcp.wire;

/**
 * Results of the wire decoders ({@link CmMessage#decode}, {@link MessageHeader#decode}). A decoder returns a positive number of bytes it consumed, exactly
 * {@link #NEED_MORE} (0: nothing consumed, call again when more bytes have arrived), or one
 * of the negative codes below, each naming one way a peer's bytes are wrong (docs/TCP-WIRE.md "Bad input"). On a negative code nothing is consumed and the caller tears the connection down;
 * peer errors are never exceptions.
 */
public final class WireStatus {

    private WireStatus() {
    }

    /** Not enough bytes yet; nothing consumed. */
    public static final int NEED_MORE = 0;

    // ---- CM message

    /**
     * CM version is not 3. For a request the passive side closes the socket without an event
     * (the peer sees a reset); for a response the active side reports {@code ENOPROTOOPT}.
     */
    public static final int CM_WRONG_VERSION = -1;
    /** CM type is none of request (0), accept (1), reject (6). */
    public static final int CM_BAD_TYPE = -2;
    /** CM {@code seg_size} is above 256. */
    public static final int CM_DATA_TOO_LONG = -3;

    // ---- message header

    /** {@code hdr_size} is below the 16-byte base header. */
    public static final int HDR_SIZE_TOO_SMALL = -10;
    /** {@code hdr_size} is above 120. */
    public static final int HDR_SIZE_TOO_LARGE = -11;
    /** {@code hdr_size} does not match the extensions that the flags, op and rma_iov_cnt imply. */
    public static final int HDR_SIZE_MISMATCH = -12;
    /** {@code size} is below {@code hdr_size}. */
    public static final int SIZE_BELOW_HDR_SIZE = -13;
    /** The payload ({@code size - hdr_size}) is above the maximum message size. */
    public static final int MESSAGE_TOO_LARGE = -14;
    /** The op is above 4. */
    public static final int UNKNOWN_OP = -15;
    /** {@code rma_iov_cnt} is above 4. */
    public static final int TOO_MANY_RMA_IOVS = -16;

    /**
     * Whether a decoder result is an error (a negative code).
     *
     * @param status a decoder result
     * @return {@code true} for the negative codes
     */
    public static boolean isError(final int status) {
        return status < 0;
    }

    /**
     * A short description of a decoder result, for logs and error events.
     *
     * @param status a decoder result
     * @return the description
     */
    public static String describe(final int status) {
        if (status > 0) {
            return "decoded " + status + " bytes";
        }
        switch (status) {
            case NEED_MORE: return "need more bytes";
            case CM_WRONG_VERSION: return "CM message version is not " + TcpWireDescriptor.VERSION;
            case CM_BAD_TYPE: return "CM message type is not request (0), accept (1) or reject (6)";
            case CM_DATA_TOO_LONG: return "CM connection data longer than " + TcpWireDescriptor.CM_MAX_DATA_LENGTH + " bytes";
            case HDR_SIZE_TOO_SMALL: return "hdr_size below " + TcpWireDescriptor.BASE_HEADER_LENGTH;
            case HDR_SIZE_TOO_LARGE: return "hdr_size above " + TcpWireDescriptor.MAX_HEADER_LENGTH;
            case HDR_SIZE_MISMATCH: return "hdr_size does not match flags, op and rma_iov_cnt";
            case SIZE_BELOW_HDR_SIZE: return "size below hdr_size";
            case MESSAGE_TOO_LARGE: return "payload above the maximum message size";
            case UNKNOWN_OP: return "op above " + TcpWireDescriptor.MAX_OP;
            case TOO_MANY_RMA_IOVS: return "rma_iov_cnt above " + TcpWireDescriptor.MAX_RMA_IOV_COUNT;
            default: return "unknown wire status " + status;
        }
    }
}
