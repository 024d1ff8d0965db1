package io.jofi.examples;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.WaitObj;
import io.jofi.WaitObject;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An application that sleeps in its own {@link Selector} on fabric completions and on its own
 * channels at once: the receive CQ is opened with {@code WaitObj.FD}, its wait object
 * ({@code getWait()}, fi_control FI_GETWAIT) is a {@code SelectableChannel} registered for
 * {@code OP_READ} next to a {@link Pipe} that carries the application's commands. As in C,
 * {@code Fabric.tryWait} comes before every sleep: {@code 0} means nothing is pending, so the
 * selector may block; {@code -EAGAIN} means read the CQ first. The CQ's channel is never read.
 *
 * <p>Run: {@code java -cp ... io.jofi.examples.SelectorWait [provider]} (default: the best RDM
 * provider). A sender thread sends five messages 50 ms apart, then writes "quit" to the pipe.
 */
public final class SelectorWait {
    /** Messages received, and how often the CQ's channel (not the pipe) woke the selector. */
    public record Result(int received, int fabricWakeups, boolean quit) {
    }

    static final int MESSAGES = 5;

    private SelectorWait() {
    }

    public static void main(String[] args) throws Exception {
        run(Fabrics.standalone(), args.length > 0 ? args[0] : null, System.out);
    }

    public static Result run(Fabrics fabrics, String provider, PrintStream out) throws Exception {
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.RDM);
        hints.fabricAttr().provName(provider);
        Info info = fabrics.getInfo(null, null, 0, hints).get(0);
        out.println("provider " + info.fabricAttr().provName());

        CqAttr fdCq = new CqAttr().format(CqFormat.MSG).waitObj(WaitObj.FD);
        CqAttr plainCq = new CqAttr().format(CqFormat.MSG).waitObj(WaitObj.UNSPEC);
        Pipe commands = Pipe.open(); // the application's own input, next to the fabric's
        try (RdmSide receiver = RdmSide.open(fabrics, info, fdCq);
             RdmSide sender = RdmSide.open(fabrics, info, plainCq);
             Pipe.SourceChannel source = commands.source();
             Pipe.SinkChannel sink = commands.sink();
             Selector selector = Selector.open()) {
            // The CQ's wait object: a channel the selector reports readable while the CQ has entries.
            if (!(receiver.cq().getWait() instanceof WaitObject.Fd fd)) {
                throw new FabricException(Errno.ENOSYS, "the CQ's FI_WAIT_FD wait object is not a channel");
            }
            fd.channel().configureBlocking(false);
            SelectionKey fabricKey = fd.channel().register(selector, SelectionKey.OP_READ);
            source.configureBlocking(false);
            source.register(selector, SelectionKey.OP_READ);

            ByteBuffer[] buffers = new ByteBuffer[MESSAGES];
            for (int i = 0; i < MESSAGES; i++) {
                ByteBuffer buf = buffers[i] = ByteBuffer.allocateDirect(64);
                Waits.post(receiver.cq(), () -> receiver.ep().recv(buf, null, Fi.FI_ADDR_UNSPEC, buf), "recv");
            }
            long toReceiver = sender.insert(receiver);
            CompletableFuture<Void> sending = CompletableFuture.runAsync(() -> send(sender, toReceiver, sink));

            CqEntry[] entries = {new CqEntry(), new CqEntry()}; // allocated once, reused by every read
            ByteBuffer command = ByteBuffer.allocate(16);
            int received = 0;
            int fabricWakeups = 0;
            boolean quit = false;
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Waits.TIMEOUT_MS);
            while ((received < MESSAGES || !quit) && System.nanoTime() < deadline) {
                // fi_trywait: sleep only when nothing is pending, else the wakeup could be lost.
                boolean safeToSleep = receiver.fabric().tryWait(receiver.cq()) == 0;
                int ready = safeToSleep ? selector.select(1000) : selector.selectNow();
                if (ready > 0) {
                    for (SelectionKey key : selector.selectedKeys()) {
                        if (key == fabricKey) {
                            fabricWakeups++;
                        } else {
                            quit |= readCommand(source, command).contains("quit");
                        }
                    }
                    selector.selectedKeys().clear();
                }
                int n;
                while ((n = receiver.cq().read(entries, entries.length)) > 0) {
                    for (int i = 0; i < n; i++) {
                        ByteBuffer buf = (ByteBuffer) entries[i].context();
                        out.println("received '" + Text.of(buf, 0, (int) entries[i].len()) + "'");
                    }
                    received += n;
                }
                if (n != -Errno.EAGAIN) {
                    throw new FabricException(-n, "reading the CQ: " + Errno.strerror(-n));
                }
            }
            sending.get(Waits.TIMEOUT_MS, TimeUnit.MILLISECONDS);
            out.println("woken " + fabricWakeups + " times by the CQ's channel; quit=" + quit);
            return new Result(received, fabricWakeups, quit);
        }
    }

    /** The sender: five messages 50 ms apart (the receiver sleeps between them), then "quit". */
    private static void send(RdmSide sender, long to, Pipe.SinkChannel commands) {
        try {
            for (int i = 1; i <= MESSAGES; i++) {
                Thread.sleep(50);
                ByteBuffer msg = Text.direct("message " + i);
                Waits.post(sender.cq(), () -> sender.ep().send(msg, null, to, "send"), "send");
                Waits.forCompletion(sender.cq());
            }
            commands.write(ByteBuffer.wrap("quit".getBytes(StandardCharsets.UTF_8)));
        } catch (FabricException | IOException | InterruptedException e) {
            throw new IllegalStateException("the sender failed", e);
        }
    }

    private static String readCommand(Pipe.SourceChannel commands, ByteBuffer into) throws IOException {
        into.clear();
        commands.read(into);
        return new String(into.array(), 0, into.position(), StandardCharsets.UTF_8);
    }
}
