package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Msg;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * A transmit the post checks refuse changes nothing (docs/ERRORS.md: "a refused call changes nothing"): an RDM endpoint connects to a peer on first use, and a refused first
 * post must not open that connection.
 */
class TcpRdmRefusedPostTest {

    @Test
    void aRefusedFirstPostToAPeerOpensNoConnection() throws Exception {
        try (RdmTestBed bed = new RdmTestBed(Progress.MANUAL, Fi.FI_MSG | Fi.FI_TAGGED | Fi.FI_RMA)) {
            RdmTestBed.Node a = bed.node("a");
            RdmTestBed.Node b = bed.node("b");
            long toB = a.insert(b);
            io.jofi.provider.rxm.RxmEndpoint ep = (io.jofi.provider.rxm.RxmEndpoint) a.ep;
            ByteBuffer big = ByteBuffer.allocateDirect((int) bed.info.txAttr().injectSize() + 1);
            ByteBuffer small = ByteBuffer.allocateDirect(8);

            assertEquals(-Errno.EBADFLAGS, a.ep.sendMsg(new Msg().buffer(small, null).addr(toB), Fi.FI_MULTI_RECV),
                    "sendMsg with a receive flag");
            assertEquals(0, ep.connectionCount(), "a refused sendMsg opened a connection");
            assertEquals(-Errno.EMSGSIZE, a.ep.inject(big, toB), "inject above inject_size");
            assertEquals(0, ep.connectionCount(), "a refused inject opened a connection");
            assertEquals(-Errno.EMSGSIZE, a.ep.tinject(big, toB, 7), "tinject above inject_size");
            assertEquals(0, ep.connectionCount(), "a refused tinject opened a connection");
            assertEquals(-Errno.EAGAIN, a.txCq.read(new io.jofi.CqEntry[] {new io.jofi.CqEntry()}, 1),
                    "a refused post completes nothing");

            // the first valid post still connects and delivers
            assertEquals(0, b.ep.recv(ByteBuffer.allocateDirect(8), null, Fi.FI_ADDR_UNSPEC, "rx"));
            assertEquals(0, a.ep.send(small, null, toB, "tx"));
            TcpTestBed.awaitCompletion(b.rxCq);
            TcpTestBed.awaitCompletion(a.txCq);
        }
    }
}
