package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitEventError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The connection-management step throws (provider-tcp/README.md "Failure model"): the CM engine
 * had no failure handler, so a listening passive endpoint went on "listening" with nobody
 * accepting, and its application heard nothing. Now its EQ gets an {@code EIO} error event that
 * names the cause and the endpoint fails. The step throws for real: a handler on the fabric's
 * real CM loop, selected through a real pipe, throws as a provider bug would.
 */
@Timeout(30)
class TcpCmFailureTest {

    @Test
    void aCmStepThatThrowsIsReportedOnEveryPassiveEndpointsEq() throws Exception {
        TcpProvider provider = new TcpProvider();
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.MSG);
        Info info = provider.getInfo("127.0.0.1", "0", Fi.FI_SOURCE, hints).get(0);
        try (var fabric = provider.fabric(info.fabricAttr(), null);
             EventQueue eq = fabric.openEq(new EqAttr(), "eq");
             PassiveEndpoint pep = fabric.passiveEndpoint(info, "pep")) {
            pep.bind(eq, 0);
            pep.listen();
            Pipe pipe = Pipe.open();
            try {
                pipe.source().configureBlocking(false);
                IllegalStateException boom = new IllegalStateException("a CM handler bug");
                ((TcpFabric) fabric).cmLoop().register(pipe.source(), SelectionKey.OP_READ, ready -> {
                    throw boom;
                });
                pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));

                EqErrEntry e = awaitEventError(eq);
                assertSame(pep, e.fid());
                assertEquals(Errno.EIO, e.err());
                String why = new String(e.errData(), 0, e.errDataSize(), StandardCharsets.UTF_8);
                assertTrue(why.contains(boom.getMessage()), why);
                FabricException ex = assertThrows(FabricException.class, pep::getName);
                assertEquals(Errno.EIO, ex.errno(), ex.getMessage());
            } finally {
                pipe.source().close();
                pipe.sink().close();
            }
        } finally {
            provider.deactivate();
        }
    }
}
