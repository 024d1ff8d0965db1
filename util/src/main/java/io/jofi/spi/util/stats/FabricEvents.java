package io.jofi.spi.util.stats;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * The provider toolkit's JDK Flight Recorder events: connection set-up, refusal and loss, a peer
 * declared failed, a completion or event queue overrun (a provider's arrival and departure is the
 * registry's own event, {@code io.jofi.ProviderChange}, recorded by the api bundle).
 * They cost nothing without a recording: each commit method first asks a probe instance
 * whether its event type is enabled, and only then builds strings and the event (so the data
 * path never allocates for them). A recording takes them as any JFR event
 * ({@code -XX:StartFlightRecording}, JMC, {@code jcmd JFR.start}); their names start with
 * {@code io.jofi.}.
 */
public final class FabricEvents {
    private FabricEvents() {
    }

    /** What every peer event names: the provider, the object and the peer. */
    abstract static class PeerEvent extends Event {
        @Label("Provider")
        String provider;
        @Label("Owner")
        @Description("The counters label of the endpoint, e.g. tcp/RxmEndpoint 4")
        String owner;
        @Label("Peer Address")
        String peer;
    }

    /** A connection event: a peer event with the local end. */
    abstract static class ConnectionEvent extends PeerEvent {
        @Label("Local Address")
        String local;
    }

    /** A connection that did not come up or went down: why, and its errno. */
    abstract static class ConnectionEnd extends ConnectionEvent {
        @Label("Reason")
        String reason;
        @Label("Errno")
        int errno;
    }

    /** A connection came up (a MSG connection, or an rxm peer's connection). */
    @Name("io.jofi.ConnectionEstablished")
    @Label("JOFI Connection Established")
    @Category({"JOFI", "Connections"})
    @Description("A connection to a peer came up")
    public static final class ConnectionEstablished extends ConnectionEvent {
    }

    /** A connection attempt was refused by the peer. */
    @Name("io.jofi.ConnectionRefused")
    @Label("JOFI Connection Refused")
    @Category({"JOFI", "Connections"})
    @Description("A connection attempt was refused or could not reach the peer")
    public static final class ConnectionRefused extends ConnectionEnd {
    }

    /** An established connection ended by the peer's doing or a failure (not a local close). */
    @Name("io.jofi.ConnectionLost")
    @Label("JOFI Connection Lost")
    @Category({"JOFI", "Connections"})
    @Description("An established connection ended: the peer shut it down, reset it or went silent")
    public static final class ConnectionLost extends ConnectionEnd {
    }

    /** A peer was declared failed: what waited on it ended with an error. */
    @Name("io.jofi.PeerFailed")
    @Label("JOFI Peer Failed")
    @Category({"JOFI", "Connections"})
    @Description("A peer was declared failed; the operations waiting on it ended with errno")
    public static final class PeerFailed extends PeerEvent {
        @Label("Errno")
        int errno;
    }

    /** A completion or event queue overran (R6): it reports nothing more. */
    @Name("io.jofi.QueueOverrun")
    @Label("JOFI Queue Overrun")
    @Category({"JOFI", "Queues"})
    @Description("A completion or event queue had no room for an unsolicited entry and overran")
    public static final class QueueOverrun extends Event {
        @Label("Queue")
        @Description("The counters label of the queue, e.g. tcp/CompletionQueue 7")
        String queue;
        @Label("Capacity")
        long capacity;
    }

    /**
     * Whether {@code jdk.jfr} is there to record with: false in an OSGi framework that does not
     * export it to the util bundle (its import is optional); every method below is then a no-op.
     */
    private static boolean jfr = jfrAvailable();
    private static final System.Logger LOG = System.getLogger(FabricEvents.class.getName());

    private static boolean jfrAvailable() {
        try {
            Class.forName("jdk.jfr.Event", false, FabricEvents.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Whether a recording takes any of the connection events: a provider asks before it looks
     * up addresses for them.
     */
    public static boolean connectionsRecorded() {
        if (!jfr) {
            return false;
        }
        try {
            return FabricEventRecorder.connectionsRecorded();
        } catch (LinkageError e) {
            recorderFailed(e);
            return false;
        }
    }

    /** A connection of {@code owner} ({@code provider}) came up between {@code local} and {@code peer}. */
    public static void connectionEstablished(String provider, String owner, Object local, Object peer) {
        if (jfr) {
            try {
                FabricEventRecorder.connectionEstablished(provider, owner, local, peer);
            } catch (LinkageError e) {
                recorderFailed(e);
            }
        }
    }

    /** {@code owner}'s connect to {@code peer} was refused ({@code errno}, positive). */
    public static void connectionRefused(String provider, String owner, Object local, Object peer, int errno,
                                         String reason) {
        if (jfr) {
            try {
                FabricEventRecorder.connectionRefused(provider, owner, local, peer, errno, reason);
            } catch (LinkageError e) {
                recorderFailed(e);
            }
        }
    }

    /** {@code owner}'s established connection to {@code peer} was lost ({@code errno}, positive). */
    public static void connectionLost(String provider, String owner, Object local, Object peer, int errno,
                                      String reason) {
        if (jfr) {
            try {
                FabricEventRecorder.connectionLost(provider, owner, local, peer, errno, reason);
            } catch (LinkageError e) {
                recorderFailed(e);
            }
        }
    }

    /** {@code owner} declared {@code peer} failed ({@code errno}, positive). */
    public static void peerFailed(String provider, String owner, Object peer, int errno) {
        if (jfr) {
            try {
                FabricEventRecorder.peerFailed(provider, owner, peer, errno);
            } catch (LinkageError e) {
                recorderFailed(e);
            }
        }
    }

    /** The queue labelled {@code queue} (its counters' owner) of {@code capacity} entries overran. */
    public static void queueOverrun(String queue, long capacity) {
        if (jfr) {
            try {
                FabricEventRecorder.queueOverrun(queue, capacity);
            } catch (LinkageError e) {
                recorderFailed(e);
            }
        }
    }

    /**
     * A recording found JFR's generated classes out of the util bundle's reach (an OSGi framework
     * that does not boot-delegate {@code jdk.jfr.*}: the event classes JFR instruments refer to
     * its internal handler classes): the events go off, once, with a warning that says how to
     * turn them on, so that a recording never breaks what reported the event (a connection's
     * end).
     */
    private static void recorderFailed(LinkageError e) {
        jfr = false;
        LOG.log(System.Logger.Level.WARNING, "JOFI's JFR events are off: " + e + " (in an OSGi framework, add"
                + " jdk.jfr.* to org.osgi.framework.bootdelegation; cnf/jofi.bndrun does)");
    }
}
