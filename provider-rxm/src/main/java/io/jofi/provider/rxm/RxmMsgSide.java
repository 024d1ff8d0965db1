package io.jofi.provider.rxm;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.EqAttr;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.FabricException;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.WaitObj;
import io.jofi.spi.util.ProgressEngine;
import io.jofi.spi.util.UtilCompletionQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The MSG objects under one rxm endpoint — its event queue, its completion queue and its
 * listener — and the thread that watches them in the endpoint's progress mode: in MANUAL the
 * connection watcher, in hosted AUTO the connection-event waiter (the MSG CQ's own engines run
 * the passes). Opened by the endpoint's enable, stopped and closed by its close or departure.
 */
final class RxmMsgSide {
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final EventQueue eq;
    private final CompletionQueue cq;
    private final PassiveEndpoint pep;
    /** The connection-management thread of MANUAL progress, or null. */
    private RxmConnectionWatcher watcher;
    /** The connection-event thread of hosted AUTO progress, or null. */
    private RxmEventWaiter waiter;
    /** Hosted AUTO progress: the MSG CQ whose hosts run the pass; a post looks at it ({@link #holdsCompletions}). */
    private volatile UtilCompletionQueue hostedCq;

    private RxmMsgSide(EventQueue eq, CompletionQueue cq, PassiveEndpoint pep) {
        this.eq = eq;
        this.cq = cq;
        this.pep = pep;
    }

    /**
     * Opens the event queue (MUTEX_COND, which the watcher sleeps on), the completion queue and a
     * listening passive endpoint on {@code msgInfo}'s address; nothing half made stays open (the
     * listener's port may be taken).
     */
    static RxmMsgSide open(Fabric fabric, Domain domain, Info msgInfo, RxmSettings settings) throws FabricException {
        EventQueue eq = null;
        CompletionQueue cq = null;
        PassiveEndpoint pep = null;
        try {
            eq = fabric.openEq(new EqAttr().size(1024).waitObj(WaitObj.MUTEX_COND), "rxm-msg-eq");
            cq = domain.openCq(new CqAttr().format(CqFormat.TAGGED).size(settings.msgCqSize())
                    .waitObj(WaitObj.UNSPEC), "rxm-msg-cq");
            pep = fabric.passiveEndpoint(msgInfo, "rxm-listener");
            pep.bind(eq, 0);
            pep.listen();
            return new RxmMsgSide(eq, cq, pep);
        } catch (FabricException | RuntimeException e) {
            closeQuietly(pep);
            closeQuietly(cq);
            closeQuietly(eq);
            throw e;
        }
    }

    EventQueue eq() {
        return eq;
    }

    CompletionQueue cq() {
        return cq;
    }

    PassiveEndpoint listener() {
        return pep;
    }

    /**
     * Starts the thread of the engine's mode: the watcher in MANUAL (under {@code lock}, through
     * {@code owner}), the event waiter in hosted AUTO after making the MSG CQ's engines host
     * {@code engine}. A thread-run AUTO engine needs neither.
     */
    void watch(ProgressEngine engine, RxmConnectionWatcher.Owner owner, Object lock) {
        if (engine.isManual()) {
            watcher = new RxmConnectionWatcher(owner, lock, eq, cq, "jofi-rxm-cm-" + SEQUENCE.incrementAndGet());
            watcher.start();
        } else if (engine.isHosted()) {
            if (cq instanceof UtilCompletionQueue q) {
                q.hostProgress(engine); // a JOFI core's CQ; any other moves by the waiter's passes alone
                hostedCq = q;
            }
            waiter = new RxmEventWaiter(owner::isEnabled, eq, engine, "jofi-rxm-cm-" + SEQUENCE.incrementAndGet());
            waiter.start();
        }
    }

    /**
     * Hosted progress only: whether the MSG CQ holds a completion that no host thread will run the
     * pass for (the MSG provider wrote it on the posting thread). A look at the queue's head.
     */
    boolean holdsCompletions() {
        UtilCompletionQueue q = hostedCq;
        return q != null && q.isReady(1);
    }

    /** The signal a sleeping progress thread waits for: the MSG CQ's. */
    void signal() {
        cq.signal();
    }

    /** Waits for the watching thread to end (the endpoint is no longer enabled), then closes the objects. */
    void stopAndClose() {
        RxmConnectionWatcher w = watcher;
        if (w != null) {
            w.join();
        }
        RxmEventWaiter ew = waiter;
        if (ew != null) {
            ew.join();
        }
        closeQuietly(pep);
        closeQuietly(cq);
        closeQuietly(eq);
    }

    private static void closeQuietly(io.jofi.Fid f) {
        if (f == null) {
            return;
        }
        try {
            f.close();
        } catch (FabricException e) {
            // closing what the endpoint opened itself: nothing else is bound to it
        }
    }
}
