package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitError;
import static io.jofi.provider.tcp.TcpTestBed.awaitEvent;
import static io.jofi.provider.tcp.TcpTestBed.awaitEventError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqErrEntry;
import io.jofi.CqAttr;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A progress step that throws (README "Failure model"), on tcp: the domain's real progress step throws (the test makes it, through
 * {@link TcpDomain#injectStepFault}, as a provider bug would) with operations pending on a
 * connected pair with bound EQs. Every pending operation completes with EIO, each EQ gets the
 * error event naming the cause and then FI_SHUTDOWN, later posts answer -EIO, no call throws —
 * in AUTO (the progress thread hits it) and MANUAL (the application's read drives it).
 */
@Timeout(60)
class TcpProgressFailureTest {
    private static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(5);

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aStepThatThrowsFailsEveryPendingOperationReportsOnTheEqAndRefusesPosts(Progress mode) throws Exception {
        try (TcpTestBed bed = new TcpTestBed(mode).connect(null, null)) {
            ByteBuffer rx = ByteBuffer.allocate(8);
            assertEquals(0, bed.client.recv(rx, null, Fi.FI_ADDR_UNSPEC, "c1"));
            assertEquals(0, bed.client.recv(rx, null, Fi.FI_ADDR_UNSPEC, "c2"));
            assertEquals(0, bed.server.recv(rx, null, Fi.FI_ADDR_UNSPEC, "s1"));
            IllegalStateException boom = new IllegalStateException("injected tcp progress fault");
            long t0 = System.nanoTime();
            ((TcpDomain) bed.domain).injectStepFault(() -> {
                throw boom;
            });

            Set<Object> failed = new HashSet<>();
            for (int i = 0; i < 2; i++) {
                CqErrEntry e = awaitError(bed.clientCq); // MANUAL: this read drives the step that throws
                assertEquals(Errno.EIO, e.err(), "a pending operation fails with EIO: " + e);
                failed.add(e.context());
            }
            assertEquals(Set.of("c1", "c2"), failed, "every pending receive of the client");
            CqErrEntry s = awaitError(bed.serverCq);
            assertEquals("s1", s.context());
            assertEquals(Errno.EIO, s.err());

            for (var eq : new io.jofi.EventQueue[] {bed.clientEq, bed.serverEq}) {
                EqErrEntry ev = awaitEventError(eq);
                assertSame(bed.domain, ev.fid(), "the error event names the failed domain");
                assertEquals(Errno.EIO, ev.err());
                String why = new String(ev.errData(), 0, ev.errDataSize(), StandardCharsets.UTF_8);
                assertTrue(why.contains(boom.getMessage()), "errData names the cause: " + why);
                awaitEvent(eq, Fi.FI_SHUTDOWN);
            }
            long took = System.nanoTime() - t0;
            assertTrue(took < BOUND_NANOS, "reported within " + TimeUnit.NANOSECONDS.toMillis(took) + " ms");

            assertEquals(-Errno.EIO, bed.client.recv(rx, null, Fi.FI_ADDR_UNSPEC, "late"), "a receive after the failure");
            assertEquals(-Errno.EIO, bed.client.send(ByteBuffer.allocate(4), null, 0, "late"), "a send after the failure");
            assertEquals(-Errno.EIO, bed.server.inject(ByteBuffer.allocate(4), 0), "an inject after the failure");
            FabricException ex = assertThrows(FabricException.class, () -> bed.domain.openCq(new CqAttr(), null));
            assertEquals(Errno.EIO, ex.errno(), "the failed domain's control calls: " + ex.getMessage());
        }
    }
}
