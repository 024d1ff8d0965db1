package io.jofi.provider.tcp;

/**
 * The layout of Linux's {@code struct tcp_info} ({@code getsockopt(IPPROTO_TCP, TCP_INFO)},
 * linux/tcp.h), as far as {@link ZeroWindowWatch} reads it: native byte order, the fields at
 * fixed offsets (the struct only grows at its end; {@code tcpi_snd_wnd} since Linux 5.4).
 *
 * <pre>
 *  offset  size  field
 *       0     1  tcpi_state          (1 = TCP_ESTABLISHED)
 *       1     1  tcpi_ca_state
 *       2     1  tcpi_retransmits
 *       3     1  tcpi_probes         unanswered zero-window or keepalive probes
 *       4     1  tcpi_backoff
 *     5-7        options, window scales, flags
 *       8    4   tcpi_rto ... tcpi_rcv_mss (8, 12, 16, 20)
 *      24    4   tcpi_unacked        segments sent and not acknowledged
 *   28-55        sacked, lost, retrans, fackets, last_data_sent, last_ack_sent, last_data_recv
 *      56    4   tcpi_last_ack_recv  ms since the peer's last acknowledgement
 *  60-227        pmtu ... rcv_ooopack
 *     228    4   tcpi_snd_wnd        the peer's advertised receive window, bytes
 *     232        (end of the part read; later kernels append fields)
 * </pre>
 */
final class TcpInfoDescriptor {
    /** {@code TCP_INFO} (linux/tcp.h). */
    static final int TCP_INFO = 11;
    /** {@code TCP_ESTABLISHED}. */
    static final int STATE_ESTABLISHED = 1;

    static final int STATE = 0;
    static final int PROBES = 3;
    static final int UNACKED = 24;
    static final int LAST_ACK_RECV = 56;
    static final int SND_WND = 228;
    /** The bytes read: up to and including {@code tcpi_snd_wnd}. */
    static final int LENGTH = 232;

    private TcpInfoDescriptor() {
    }
}
