package io.jofi.tools.ft;

import io.jofi.Errno;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * fabtests' out-of-band TCP socket ({@code ft_init_oob}, {@code -b}/{@code -E}, and programs
 * that always use it): the server listens on its {@code -s} address (every address without it)
 * at the OOB port (default 3000) and accepts one client; the client connects to the server's
 * address at that port. Over it go fabtests' address exchange (each side's name in a 256-byte
 * control message) and its 1-byte sync. Every read is bounded by {@code --timeout}.
 */
final class OobChannel implements AutoCloseable {
    /** fabtests' sleep(1) after the client's out-of-band connect. */
    static final long CLIENT_PAUSE_MS = 1000;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    private OobChannel(Socket socket) throws IOException {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /**
     * ft_init_oob: accept one client (server) or connect (client). The client then waits a second,
     * as fabtests' does: the server opens its fabric only after the accept, and a MSG client that
     * connected at once could find nothing listening yet (ECONNREFUSED).
     */
    static OobChannel open(FtOptions opts) {
        OobChannel channel = open(opts, opts.oobPort);
        if (opts.client()) {
            try {
                Thread.sleep(CLIENT_PAUSE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                channel.close();
                throw new FtError(-Errno.EINTR, "interrupted after the out-of-band connect");
            }
        }
        return channel;
    }

    /** A socket as {@link #open(FtOptions)} at {@code service} (fi_cm_data's {@code -q} management port). */
    static OobChannel open(FtOptions opts, String service) {
        int port = FtOptions.atoi(service);
        int timeoutMs = opts.timeoutSeconds < 0 ? 0 : opts.timeoutSeconds * 1000;
        try {
            Socket socket;
            if (!opts.client()) {
                try (ServerSocket listener = new ServerSocket()) {
                    listener.setReuseAddress(true);
                    listener.bind(opts.srcAddr == null ? new InetSocketAddress(port)
                            : new InetSocketAddress(InetAddress.getByName(opts.srcAddr), port));
                    listener.setSoTimeout(timeoutMs);
                    socket = listener.accept();
                }
            } else {
                socket = new Socket();
                socket.connect(new InetSocketAddress(InetAddress.getByName(opts.dstAddr), port), timeoutMs);
            }
            socket.setSoTimeout(timeoutMs);
            return new OobChannel(socket);
        } catch (SocketTimeoutException e) {
            throw new FtError(-Errno.ENODATA, opts.timeoutSeconds + "s timeout expired (out-of-band socket)");
        } catch (IOException e) {
            throw new FtError(-Errno.ECONNREFUSED, (opts.client() ? "connect" : "accept") + " (out-of-band port " + port
                    + "): " + e.getMessage());
        }
    }

    /** ft_sock_send. */
    void send(byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            throw new FtError(-Errno.EIO, "ft_sock_send: " + e.getMessage());
        }
    }

    /** ft_sock_recv of exactly {@code length} bytes; a closed socket is -FI_ENOTCONN. */
    byte[] receive(int length) {
        byte[] bytes = new byte[length];
        try {
            in.readFully(bytes);
            return bytes;
        } catch (EOFException e) {
            throw new FtError(-Errno.ENOTCONN, "ft_sock_recv: the peer closed the out-of-band socket");
        } catch (SocketTimeoutException e) {
            throw new FtError(-Errno.ENODATA, "ft_sock_recv: timeout expired");
        } catch (IOException e) {
            throw new FtError(-Errno.EIO, "ft_sock_recv: " + e.getMessage());
        }
    }

    /** ft_sync over the socket: 1 byte each way, the client first. */
    void sync(boolean client) {
        if (client) {
            send(new byte[1]);
            receive(1);
        } else {
            receive(1);
            send(new byte[1]);
        }
    }

    /** ft_sock_sync(value): a 4-byte int each way (host order, little-endian here), the client first; returns the peer's. */
    int syncInt(boolean client, int value) {
        byte[] mine = java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(value).array();
        byte[] theirs;
        if (client) {
            send(mine);
            theirs = receive(4);
        } else {
            theirs = receive(4);
            send(mine);
        }
        return java.nio.ByteBuffer.wrap(theirs).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a socket whose run is over: nothing depends on it any more
        }
    }
}
