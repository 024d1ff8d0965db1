package io.jofi.provider.verbs;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.Progress;
import io.jofi.conformance.ConformanceFixture;

/**
 * The child JVM of {@link VerbsCmEventCloseRaceTest} (run under the {@code cm_event_delay.c}
 * shim): rounds of connecting a fresh MSG endpoint to a passive endpoint, answering the request
 * (reject or accept, the first argument), and closing the connecting endpoint after a delay that
 * sweeps across the time its event read holds the connection-management thread. Exits 0 when
 * every round ran and a connect after them still works; 1 with the reason otherwise; a JVM crash
 * is the failure the test looks for.
 */
public final class CmEventCloseRaceChild {
    private static final long BOUND_NANOS = 60_000_000_000L;

    private enum Answer { REJECT, ACCEPT }

    private CmEventCloseRaceChild() {
    }

    /**
     * @param args the answer ({@code REJECT} or {@code ACCEPT}), the rounds, and the shim's delay
     *             in milliseconds (the width of the window the sweep must hit)
     */
    public static void main(String[] args) {
        try {
            sweep(Answer.valueOf(args[0]), Integer.parseInt(args[1]), Long.parseLong(args[2]) * 1_000_000L);
            System.out.println("CmEventCloseRaceChild: done");
            System.exit(0);
        } catch (Throwable t) {
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    private static void sweep(Answer answer, int rounds, long delayNanos) throws Exception {
        try (ConformanceFixture fx = new ConformanceFixture(Fabrics.standalone(), "verbs", EpType.MSG, Progress.AUTO,
                BOUND_NANOS / 1_000_000)) {
            Info info = fx.require(Fi.FI_MSG, 0, EpType.MSG);
            CompletionQueue cq = fx.openCq(new CqAttr(), "cq");
            EventQueue pepEq = fx.openEq(new EqAttr(), "eq-pep");
            PassiveEndpoint pep = fx.openPassiveEndpoint(info, "pep");
            pep.bind(pepEq, 0);
            pep.listen();
            byte[] listenAddr = pep.getName();
            // calibration: when the answer's event reaches the connecting side's EQ — the shim's
            // delay ends just before, so the event read holds the CM thread in the delay before it.
            // The first rounds run cold (class loading, the interpreter: 0.5 s more in the VM), so
            // the last of three counts.
            long eventNanos = 0;
            for (int i = 0; i < 3; i++) {
                eventNanos = round(fx, info, cq, pepEq, listenAddr, answer, -1);
            }
            long from = Math.max(0, eventNanos - 3 * delayNanos);
            long to = eventNanos + delayNanos;
            System.out.printf("CmEventCloseRaceChild %s: the event came %d ms after the answer; closes swept over"
                    + " %d-%d ms%n", answer, eventNanos / 1_000_000, from / 1_000_000, to / 1_000_000);
            for (int r = 0; r < rounds; r++) {
                round(fx, info, cq, pepEq, listenAddr, answer, from + (to - from) * r / rounds);
            }
            round(fx, info, cq, pepEq, listenAddr, answer, -1); // the fabric still connects after the races
        }
    }

    /**
     * One round: connect, answer, then close the connecting endpoint {@code closeDelayNanos}
     * after the answer, or ({@code -1}) once the answer's event is on its EQ.
     *
     * @return nanoseconds from the answer to its event on the connecting side's EQ (-1 rounds), else 0
     */
    private static long round(ConformanceFixture fx, Info info, CompletionQueue cq, EventQueue pepEq,
            byte[] listenAddr, Answer answer, long closeDelayNanos) throws FabricException {
        EventQueue eq = fx.openEq(new EqAttr(), "eq-a");
        Endpoint a = fx.openEndpoint(info, "ep-a");
        a.bind(eq, 0);
        a.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        a.enable();
        a.connect(listenAddr, null);
        EqEntry ev = new EqEntry();
        fx.await().event(pepEq, ev, Fi.FI_CONNREQ, "FI_CONNREQ on the passive endpoint's EQ");
        Info req = ev.info();
        Endpoint b = null;
        EventQueue bEq = null;
        if (answer == Answer.ACCEPT) {
            bEq = fx.openEq(new EqAttr(), "eq-b");
            b = fx.openEndpoint(req, "ep-b");
            b.bind(bEq, 0);
            b.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            b.enable();
            b.accept(null);
        } else {
            ((PassiveEndpoint) ev.fid()).reject(req.handle(), null);
        }
        long answered = System.nanoTime();
        long took = 0;
        if (closeDelayNanos < 0) {
            took = awaitAnswer(eq, answer, answered);
        } else {
            while (System.nanoTime() - answered < closeDelayNanos) {
                Thread.onSpinWait();
            }
        }
        fx.close(a);
        if (b != null) {
            fx.close(b);
            fx.close(bEq);
        }
        fx.close(eq);
        return took;
    }

    private static long awaitAnswer(EventQueue eq, Answer answer, long answered) {
        EqEntry ev = new EqEntry();
        EqErrEntry err = new EqErrEntry();
        while (System.nanoTime() - answered < BOUND_NANOS) {
            int rc = eq.read(ev, 0);
            if (rc == 1 && answer == Answer.ACCEPT && ev.event() == Fi.FI_CONNECTED) {
                return System.nanoTime() - answered;
            }
            if (rc == -Errno.EAVAIL && answer == Answer.REJECT && eq.readErr(err, 0) == 1
                    && err.err() == Errno.ECONNREFUSED) {
                return System.nanoTime() - answered;
            }
            if (rc == 1 || rc == -Errno.EAVAIL) {
                throw new AssertionError("after the " + answer + ": event " + (rc == 1 ? ev.event() : err));
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no event on the connecting side's EQ within 60 s of the " + answer);
    }
}
