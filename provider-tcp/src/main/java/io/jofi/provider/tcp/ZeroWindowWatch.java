package io.jofi.provider.tcp;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Keeps {@code TCP_USER_TIMEOUT} from ending a connection to a peer that is alive but slow to
 * consume: Linux (5.11 and later) also aborts a connection whose peer's receive window stays
 * zero for the user timeout, even while the peer answers every window probe. Once a second this
 * reads {@code TCP_INFO} ({@link TcpInfoDescriptor}) of each connection that has the option:
 * while the peer advertises a zero window and its last acknowledgement is recent (younger than
 * the timeout less one period), the option is off on that socket; otherwise (the window opened,
 * or the peer stopped answering) it is set again, and the kernel ends the connection once the
 * probes have gone unanswered for the timeout.
 *
 * <p>One daemon thread ({@code jofi-tcp-window-watch}) per class loader, started with the first
 * watched socket and ending within a period once no watched socket is open; one
 * {@code getsockopt} per connection a second, off the data path.
 */
final class ZeroWindowWatch {
    /** How often each connection is looked at, ms. */
    static final long PERIOD_MS = 1000;
    private static final System.Logger LOG = System.getLogger(ZeroWindowWatch.class.getName());
    private static final Queue<Watched> WATCHED = new ConcurrentLinkedQueue<>();
    private static Thread thread;

    private ZeroWindowWatch() {
    }

    /**
     * One socket (weakly: the watch keeps no closed endpoint reachable), its descriptor, its
     * timeout, whether the option is off now.
     */
    private static final class Watched {
        final WeakReference<SocketChannel> channel;
        final int fd;
        final int userTimeout;
        boolean suspended;

        Watched(SocketChannel channel, int fd, int userTimeout) {
            this.channel = new WeakReference<>(channel);
            this.fd = fd;
            this.userTimeout = userTimeout;
        }
    }

    /** Watches {@code ch} (descriptor {@code fd}, {@code TCP_USER_TIMEOUT} {@code userTimeout} ms) until it closes. */
    static void watch(SocketChannel ch, int fd, int userTimeout) {
        WATCHED.add(new Watched(ch, fd, userTimeout));
        synchronized (ZeroWindowWatch.class) {
            if (thread == null) {
                thread = new Thread(ZeroWindowWatch::run, "jofi-tcp-window-watch");
                thread.setDaemon(true);
                thread.start();
            }
        }
    }

    private static void run() {
        byte[] info = new byte[TcpInfoDescriptor.LENGTH];
        ByteBuffer view = ByteBuffer.wrap(info).order(ByteOrder.nativeOrder());
        while (true) {
            try {
                Thread.sleep(PERIOD_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            WATCHED.removeIf(w -> {
                SocketChannel ch = w.channel.get();
                return ch == null || !ch.isOpen() || !check(ch, w, info, view);
            });
            synchronized (ZeroWindowWatch.class) {
                if (WATCHED.isEmpty()) {
                    thread = null;
                    return;
                }
            }
        }
    }

    /** Sets or clears the option of one socket; false when it cannot be watched (closed meanwhile, an old kernel). */
    private static boolean check(SocketChannel ch, Watched w, byte[] info, ByteBuffer view) {
        try {
            int length = Sockopt.get(w.fd, TcpInfoDescriptor.TCP_INFO, info);
            if (!ch.isOpen()) {
                return false; // the descriptor may already name another socket
            }
            if (length < TcpInfoDescriptor.LENGTH) {
                LOG.log(System.Logger.Level.INFO, "TCP_INFO without tcpi_snd_wnd (a kernel before 5.4): a peer that "
                        + "holds its window at zero for the user timeout is ended by the kernel");
                return false;
            }
            if ((info[TcpInfoDescriptor.STATE] & 0xFF) != TcpInfoDescriptor.STATE_ESTABLISHED) {
                return true;
            }
            boolean zeroWindow = view.getInt(TcpInfoDescriptor.SND_WND) == 0;
            long sinceAck = Integer.toUnsignedLong(view.getInt(TcpInfoDescriptor.LAST_ACK_RECV));
            boolean suspend = zeroWindow && sinceAck < w.userTimeout - PERIOD_MS;
            if (suspend != w.suspended) {
                Sockopt.set(w.fd, TcpUserTimeout.TCP_USER_TIMEOUT, suspend ? 0 : w.userTimeout);
                w.suspended = suspend;
            }
            return true;
        } catch (IOException e) {
            return false; // closed under us (EBADF, ENOTSOCK): nothing to watch
        }
    }
}
