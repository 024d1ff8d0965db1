package io.jofi.provider.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CqEntry;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Endpoint;
import io.jofi.Fi;
import io.jofi.PassiveEndpoint;
import io.jofi.conformance.EndpointPair;
import io.jofi.conformance.EndpointTest;
import io.jofi.conformance.PairSpec;
import io.jofi.spi.util.UtilEndpoint;
import io.jofi.spi.util.stats.StatsCounter;
import io.jofi.spi.util.stats.StatsFile;
import io.jofi.spi.util.stats.StatsFileReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The verbs MSG endpoint's transport counters on a real device (the VM): a connection counts
 * as made at both ends, a peer's shutdown as lost at the other end only, a connect to an
 * address nobody listens on as refused; reading an idle CQ counts empty polls; and on soft-RoCE
 * a send that waits in the RNR retry for its receive raises the device's RNR counters, which
 * the counters file shows (read from sysfs off the data path, at most a second late).
 */
class VerbsTransportCountersTest extends EndpointTest {
    @BeforeEach
    void verbsAvailable() {
        VerbsAvailable.assume();
    }

    @Override
    protected String provider() {
        return "verbs";
    }

    @Override
    protected EpType epType() {
        return EpType.MSG;
    }

    @Test
    void connectionsMadeLostAndRefusedAndEmptyPollsAreCounted() throws Exception {
        EndpointPair p = pair(Fi.FI_MSG);
        UtilEndpoint a = (UtilEndpoint) p.a().ep();
        UtilEndpoint b = (UtilEndpoint) p.b().ep();
        assertEquals(1, counter(a, "connections made"), "the connecting side");
        assertEquals(1, counter(b, "connections made"), "the accepting side");

        long empty = counter(a, "empty CQ polls");
        CqEntry[] none = new CqEntry[1];
        none[0] = new CqEntry();
        await().until(() -> {
            p.a().txCq().read(none, 1);
            return counter(a, "empty CQ polls") > empty;
        }, "an idle CQ's polls to be counted");

        p.a().ep().shutdown(0);
        await().event(p.b().eq(), new EqEntry(), Fi.FI_SHUTDOWN, "FI_SHUTDOWN at side b");
        assertEquals(1, counter(b, "connections lost"), "the peer's shutdown is a loss at b");
        assertEquals(0, counter(a, "connections lost"), "a's own shutdown is not");

        // a listener that is gone: the connect is rejected
        EventQueue pepEq = fx.openEq(new EqAttr(), "pep-eq");
        PassiveEndpoint pep = fx.openPassiveEndpoint(p.a().info(), "pep");
        pep.bind(pepEq, 0);
        pep.listen();
        byte[] gone = pep.getName();
        fx.close(pep);
        EventQueue eq = fx.openEq(new EqAttr(), "eq-c");
        Endpoint c = fx.openEndpoint(fx.require(Fi.FI_MSG), "ep-c");
        c.bind(eq, 0);
        c.bind(fx.openCq(new io.jofi.CqAttr(), "cq-c"), Fi.FI_TRANSMIT | Fi.FI_RECV);
        c.enable();
        c.connect(gone, null);
        EqErrEntry err = await().errorEvent(eq, new EqErrEntry(), "the connect to a closed listener to fail");
        // soft-RoCE: rdma_cm REJECTED (ECONNREFUSED); soft-iWARP: the TCP reset arrives as a
        // connect error (ETIMEDOUT) whose status is ECONNREFUSED
        assertTrue(err.err() == Errno.ECONNREFUSED
                || err.err() == Errno.ETIMEDOUT && err.provErrno() == Errno.ECONNREFUSED, "refused: " + err);
        assertEquals(1, counter((UtilEndpoint) c, "connects refused"));
        assertEquals(0, counter((UtilEndpoint) c, "connections made"));
        assertEquals(0, counter(a, "RNR retries exceeded"), "rnr_retry 7 retries for ever");
    }

    @Test
    void aSendWaitingForItsReceiveRaisesTheDevicesRnrCounters() throws Exception {
        EndpointPair p = pair(Fi.FI_MSG);
        requireResourceManagement(p); // iWARP has no RNR: the send would end the connection
        String device = p.a().info().domainAttr().name();
        Path file = Path.of("/sys/class/infiniband", device, "ports", "1", "hw_counters", "rcvd_rnr_err");
        Assumptions.assumeTrue(Files.isReadable(file), "device " + device + " has no " + file);
        long before = read(file);
        ByteBuffer payload = pattern(64, 3);
        post(() -> p.a().ep().send(payload, null, p.a().peer(), "send"), "the send");
        // the send waits in the RNR retry (rnr_retry 7: for ever) until its receive is posted
        await().until(() -> read(file) > before, "the device to count the receiver-not-ready NAKs");
        ByteBuffer landing = zeroed(64);
        post(() -> p.b().ep().recv(landing, null, p.b().peer(), "recv"), "the receive");
        await().completion(p.b().rxCq(), new CqEntry(), "the message");
        await().completion(p.a().txCq(), new CqEntry(), "the send's completion");
        assertPattern(landing, 0, 64, 3, "the message");
        long now = read(file);
        String label = "verbs/" + device + " port 1 hw_counters: rcvd_rnr_err";
        await().until(() -> fileValue(label) >= now, label + " in the counters file to reach " + now);
    }

    private static long counter(UtilEndpoint ep, String name) {
        for (StatsCounter c : ep.counters().counters()) {
            if (c.label().equals(ep.counters().owner() + ": " + name)) {
                return c.get();
            }
        }
        throw new AssertionError("no counter " + name + " in " + ep.counters().counters());
    }

    /** The value of {@code label} in this JVM's counters file, -1 when it is not there. */
    private static long fileValue(String label) {
        try {
            for (StatsFileReader.CounterValue c : StatsFileReader.read(StatsFile.process().path()).counters()) {
                if (c.label().equals(label)) {
                    return c.value();
                }
            }
            return -1;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static long read(Path f) {
        try {
            return Long.parseLong(Files.readString(f).trim());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
