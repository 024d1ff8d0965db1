package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A progress step that throws (README "Failure model"), on shm: the domain's real progress step throws (made to, through
 * {@link ShmDomain#injectStepFault}, as a provider bug would) with receives and a send pending
 * and an EQ bound. Each pending operation completes with EIO, the EQ gets the error event
 * naming the cause, later posts answer -EIO, no call throws — in AUTO and MANUAL progress.
 */
@Timeout(60)
class ShmProgressFailureTest {
    private static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException {
        dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmfail-");
    }

    @AfterAll
    static void remove() throws IOException {
        ShmCrossProcessTest.deleteTree(dir);
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aStepThatThrowsFailsEveryPendingOperationReportsOnTheEqAndRefusesPosts(Progress mode) throws Exception {
        ShmProvider provider = new ShmProvider().directory(dir);
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.RDM);
        hints.domainAttr().dataProgress(mode);
        Info info = provider.getInfo(null, null, 0, hints).get(0);
        Fabric fabric = provider.fabric(info.fabricAttr(), null);
        Domain domain = fabric.domain(info, null);
        EventQueue eq = fabric.openEq(new EqAttr(), "eq");
        CompletionQueue cq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), "cq");
        AddressVector av = domain.openAv(new AvAttr(), null);
        Endpoint ep = domain.endpoint(info, "ep");
        try {
            ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            ep.bind(av, 0);
            ep.bind(eq, 0);
            ep.enable();
            ByteBuffer rx = ByteBuffer.allocateDirect(16);
            assertEquals(0, ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, "r1"));
            assertEquals(0, ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, "r2"));
            IllegalStateException boom = new IllegalStateException("injected shm progress fault");
            long t0 = System.nanoTime();
            ((ShmDomain) domain).injectStepFault(() -> {
                throw boom;
            });

            Set<Object> failed = new HashSet<>();
            for (int i = 0; i < 2; i++) {
                CqErrEntry e = awaitError(cq, t0); // MANUAL: this read drives the step that throws
                assertEquals(Errno.EIO, e.err(), "a pending operation fails with EIO: " + e);
                failed.add(e.context());
            }
            assertEquals(Set.of("r1", "r2"), failed, "every pending receive");
            EqErrEntry ev = awaitEventError(eq, t0);
            assertSame(domain, ev.fid(), "the error event names the failed domain");
            assertEquals(Errno.EIO, ev.err());
            String why = new String(ev.errData(), 0, ev.errDataSize(), StandardCharsets.UTF_8);
            assertTrue(why.contains(boom.getMessage()), "errData names the cause: " + why);

            assertEquals(-Errno.EIO, ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, "late"), "a receive after the failure");
            assertEquals(-Errno.EIO, ep.send(ByteBuffer.allocateDirect(4), null, 0, "late"), "a send after the failure");
        } finally {
            ep.close();
            av.close();
            cq.close();
            eq.close();
            domain.close();
            fabric.close();
        }
    }

    private static CqErrEntry awaitError(CompletionQueue cq, long t0) {
        CqEntry[] buf = {new CqEntry()};
        while (true) {
            int rc = cq.read(buf, 1);
            if (rc == -Errno.EAVAIL) {
                CqErrEntry e = new CqErrEntry();
                assertEquals(1, cq.readErr(e, 0));
                return e;
            }
            assertEquals(-Errno.EAGAIN, rc, "expected an error completion");
            if (System.nanoTime() - t0 > BOUND_NANOS) {
                fail("no error completion within " + TimeUnit.NANOSECONDS.toMillis(BOUND_NANOS) + " ms of the fault");
            }
            Thread.onSpinWait();
        }
    }

    private static EqErrEntry awaitEventError(EventQueue eq, long t0) {
        EqEntry e = new EqEntry();
        while (true) {
            int rc = eq.read(e, 0);
            if (rc == -Errno.EAVAIL) {
                EqErrEntry err = new EqErrEntry();
                assertEquals(1, eq.readErr(err, 0));
                return err;
            }
            assertEquals(-Errno.EAGAIN, rc, "expected an error event, got " + (rc == 1 ? "event " + e.event() : rc));
            if (System.nanoTime() - t0 > BOUND_NANOS) {
                fail("no error event within " + TimeUnit.NANOSECONDS.toMillis(BOUND_NANOS) + " ms of the fault");
            }
            Thread.onSpinWait();
        }
    }
}
