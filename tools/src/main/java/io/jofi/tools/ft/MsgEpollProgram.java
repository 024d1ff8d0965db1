package io.jofi.tools.ft;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.WaitObject;
import java.io.IOException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.charset.StandardCharsets;

/**
 * fabtests' {@code fi_msg_epoll}: fi_msg's connection and greeting, each side waiting for its one
 * completion (the client's send, the server's receive) on the CQ's {@code FI_WAIT_FD} wait object
 * in an epoll set: {@code fi_trywait} on the CQ, then the epoll wait, then {@code fi_cq_read},
 * until a completion is there. On JOFI the wait object is a selectable channel and the epoll set a
 * {@link Selector}.
 */
final class MsgEpollProgram extends FtProgram {
    @Override
    String name() {
        return "fi_msg_epoll";
    }

    @Override
    String optstring() {
        return "h" + ADDR_OPTS + INFO_OPTS;
    }

    @Override
    String description() {
        return "A simple MSG client-sever example that demonstrates one possible usage of the underlying cq wait objects.";
    }

    @Override
    void configure(FtOptions opts, Info hints) {
        opts.compMethod = FtOptions.CompMethod.FD;
        hints.epAttr().type(EpType.MSG);
        hints.caps(Fi.FI_MSG);
    }

    @Override
    void run(FtSession s) {
        s.initFabricCm();
        boolean client = s.opts.client();
        CompletionQueue cq = client ? s.txCq : s.rxCq;
        try (Selector epoll = Selector.open()) {
            if (!(cq.getWait() instanceof WaitObject.Fd fd)) {
                throw new FtError(-Errno.ENOSYS, "the CQ's FI_WAIT_FD wait object is not a channel");
            }
            SelectableChannel channel = fd.channel();
            channel.configureBlocking(false);
            channel.register(epoll, SelectionKey.OP_READ, cq);
            if (client) {
                s.out.println("Posting a send...");
                byte[] message = (Greeting.GREETING + "\0").getBytes(StandardCharsets.US_ASCII);
                s.txBuf.put(0, message);
                s.postTx(message.length, FtSession.NO_CQ_DATA, s.txCtx);
                await(s, cq, epoll);
                s.out.println("Send completion received");
            } else {
                s.out.println("Waiting for client...");
                await(s, cq, epoll);
                String received = Greeting.cString(s.rxBuf);
                if (!received.equals(Greeting.GREETING)) {
                    throw new FtError(-1, received.length() != Greeting.GREETING.length()
                            ? "Received length does not match expected length."
                            : "Received message does not match expected message.");
                }
                s.out.println("Data check OK");
                s.out.println("Received data from client: " + received);
            }
        } catch (IOException | io.jofi.FabricException e) {
            throw new FtError(-Errno.EIO, "epoll: " + e.getMessage());
        } finally {
            s.shutdown();
        }
    }

    /** fi_trywait, epoll_wait (bounded by --timeout), fi_cq_read, until one completion is read. */
    private static void await(FtSession s, CompletionQueue cq, Selector epoll) throws IOException {
        CqEntry[] comp = {new CqEntry()};
        long deadline = s.opts.timeoutSeconds < 0 ? Long.MAX_VALUE : System.nanoTime() + s.opts.timeoutSeconds * 1_000_000_000L;
        while (true) {
            if (s.fabric.tryWait(cq) == 0) {
                int ready = epoll.select(s.opts.timeoutSeconds < 0 ? 0 : 100);
                for (SelectionKey key : epoll.selectedKeys()) {
                    if (key.attachment() != cq) {
                        s.out.println("unexpected event!");
                    }
                }
                epoll.selectedKeys().clear();
                if (ready == 0 && System.nanoTime() - deadline > 0) {
                    throw new FtError(-Errno.ENODATA, s.opts.timeoutSeconds + "s timeout expired");
                }
            }
            int rc = cq.read(comp, 1);
            if (rc > 0) {
                return;
            }
            if (rc == -Errno.EAVAIL) {
                throw s.cqReadErr(cq);
            }
            if (rc != -Errno.EAGAIN) {
                throw FtCalls.printErr("fi_cq_read", rc, null);
            }
        }
    }
}
