package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CompletionQueue;
import io.jofi.Counter;
import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Domain;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.ProviderInfo;
import io.jofi.ProviderListener;
import io.jofi.ProviderState;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Provider departure (R15): when the provider's service goes away, everything it opened is
 * shut down cleanly — pending operations complete with ECANCELED, connected endpoints get
 * FI_SHUTDOWN, CQs and EQs stay readable for draining, further data-path calls return
 * -ENODEV and control-path calls throw ENODEV; getInfo forgets the provider and finds it again
 * once it is back; ProviderListeners hear both.
 *
 * <p>Runs only where the test can stop the provider: a subclass returns a
 * {@link ProviderControl} from {@link #providerControl()}. Without one every test is skipped,
 * saying so. Objects of the departed provider were shut down by it (R15); the fixture does not
 * close them again, since what close does after a departure is not the subject of R15. (Thread and class-loader release after uninstall is an OSGi matter, tested by the
 * itests module.)
 */
public abstract class ProviderDepartureConformance extends EndpointTest {
    private boolean stopped;

    /** How to stop and start the provider; {@code null} (the default) skips this suite. */
    protected ProviderControl providerControl() {
        return null;
    }

    private ProviderControl control() {
        ProviderControl c = providerControl();
        Assumptions.assumeTrue(c != null, "provider " + provider()
                + " cannot be stopped by this test run: R15 needs a ProviderControl (override providerControl())");
        return c;
    }

    private void stop() throws Exception {
        control().stop();
        stopped = true;
    }

    /** Brings the provider back after each test, so that the next one finds it. */
    @AfterEach
    void restartProvider() throws Exception {
        if (stopped) {
            stopped = false;
            providerControl().start();
        }
    }

    private static final class Recorder implements ProviderListener {
        final List<String> added = new CopyOnWriteArrayList<>();
        final List<String> removed = new CopyOnWriteArrayList<>();

        @Override
        public void providerAdded(ProviderInfo provider) {
            added.add(provider.name());
        }

        @Override
        public void providerRemoved(ProviderInfo provider) {
            removed.add(provider.name());
        }
    }

    private boolean listedAvailable() {
        return fx.fabrics().providers().stream()
                .anyMatch(p -> p.name().equals(fx.provider()) && p.state() == ProviderState.AVAILABLE);
    }

    /** R15: listeners hear the departure and the return; getInfo forgets the provider and then finds it again. */
    @Test
    void registryFollowsTheProvider() throws Exception {
        ProviderControl c = control();
        fx.require(0);
        Recorder rec = new Recorder();
        fx.fabrics().addListener(rec);
        try {
            stop();
            await().until(() -> rec.removed.contains(fx.provider()), "ProviderListener.providerRemoved for " + fx.provider());
            assertTrue(fx.find(0, 0, EpType.UNSPEC).isEmpty(), "getInfo never returns a departed provider (R15)");
            assertFalse(listedAvailable(), "providers() does not list a departed provider as available");
            c.start();
            stopped = false;
            await().until(() -> rec.added.contains(fx.provider()), "ProviderListener.providerAdded for " + fx.provider());
            assertFalse(fx.find(0, 0, EpType.UNSPEC).isEmpty(), "getInfo sees the provider again on its next call (R15)");
        } finally {
            fx.fabrics().removeListener(rec);
        }
    }

    /**
     * R15: CQs and EQs stay readable so the application can drain them; then, and for every
     * other data-path call, -ENODEV; control-path calls throw ENODEV.
     */
    @Test
    void openObjectsDrainThenAnswerEnodev() throws Exception {
        control();
        Fabric fabric = fx.fabric();
        Domain domain = fx.domain();
        CompletionQueue cq = fx.openCq(new CqAttr(), "cq");
        EventQueue eq = fx.openEq(new EqAttr().flags(Fi.FI_WRITE), "eq");
        Counter cntr = fx.openCounter(new CounterAttr(), "cntr");
        Object ctx = new Object();
        assertEquals(1, eq.write(new EqEntry().event(EqConformance.APP_EVENT).context(ctx), 0), "write before departure");
        stop();
        EqEntry r = new EqEntry();
        assertEquals(1, eq.read(r, 0), "the event written before the departure is still read (R15)");
        assertSame(ctx, r.context());
        assertEquals(-Errno.ENODEV, eq.read(r, 0), "a drained EQ of a departed provider (R15)");
        assertEquals(-Errno.ENODEV, eq.write(new EqEntry().event(EqConformance.APP_EVENT), 0), "EQ write after departure (R15)");
        assertEquals(-Errno.ENODEV, cq.read(new CqEntry[] {new CqEntry()}, 1), "a drained CQ of a departed provider (R15)");
        assertEquals(-Errno.ENODEV, cntr.add(1), "counter add after departure (R15)");
        FabricException e1 = assertThrows(FabricException.class, () -> domain.openCq(new CqAttr(), null), "openCq after departure");
        assertEquals(Errno.ENODEV, e1.errno(), "openCq after departure (R15): " + e1);
        FabricException e2 = assertThrows(FabricException.class, () -> fabric.openEq(new EqAttr(), null), "openEq after departure");
        assertEquals(Errno.ENODEV, e2.errno(), "openEq after departure (R15): " + e2);
        fx.forgetAll();
    }

    /**
     * R15: pending operations complete with ECANCELED errors, connected (MSG) endpoints get
     * FI_SHUTDOWN, and posting afterwards returns -ENODEV.
     */
    @Test
    void pendingOperationsAreCanceled() throws Exception {
        control();
        EndpointPair p = pair(Fi.FI_MSG);
        Object pending = new Object();
        post(() -> p.b().ep().recv(zeroed(16), null, ANY, pending), "recv that will be pending at departure");
        stop();
        CqErrEntry e = await().error(p.b().rxCq(), new CqErrEntry(), "the pending receive to be cancelled by the departure");
        assertEquals(Errno.ECANCELED, e.err(), "a pending operation at departure (R15): " + e);
        assertSame(pending, e.context(), "its context");
        if (p.type() == EpType.MSG) {
            EqEntry ev = new EqEntry();
            await().event(p.a().eq(), ev, Fi.FI_SHUTDOWN, "FI_SHUTDOWN on side a at departure (R15)");
            await().event(p.b().eq(), ev, Fi.FI_SHUTDOWN, "FI_SHUTDOWN on side b at departure (R15)");
        }
        assertEquals(-Errno.ENODEV, p.a().ep().send(pattern(4, 0), null, p.a().peer(), "late"), "send after departure (R15)");
        fx.forgetAll();
    }
}
