package io.jofi.spi.util.stats;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The counters of one object (an endpoint, a queue), labelled {@code "<owner>: <name>"} and
 * freed together when the object ends ({@link #close()}); a JMX MBean meanwhile
 * ({@code io.jofi:type=Endpoint,provider=tcp,name=TcpEndpoint 3}); and where the object is, once
 * known ({@link #describeEnds}: its local and peer address). Control path only.
 */
public final class CounterGroup implements AutoCloseable {
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    /** The one cleaner thread, started on first use. */
    private static final class CleanerHolder {
        static final Cleaner CLEANER = Cleaner.create();
    }

    private final StatsFile file;
    private final int typeId;
    private final String owner;
    private final List<StatsCounter> counters = new ArrayList<>();
    /** Its MBean while it lives, or null (JMX off or refused). */
    private CounterGroupMBean mbean;
    /** Its description record ({@link #describeEnds}), or null; its text, to skip a repeat. */
    private StatsCounter description;
    private String descriptionText;
    /** Closed: a late description (a connection reported after close) is not published. */
    private boolean closed;

    /**
     * @param file   where the counters live ({@link StatsFile#process()})
     * @param typeId its objects' type ({@code StatsFileDescriptor.TYPE_*})
     * @param owner  the label prefix, e.g. {@code "tcp/TcpEndpoint 3"}
     */
    public CounterGroup(StatsFile file, int typeId, String owner) {
        this.file = file;
        this.typeId = typeId;
        String mark = MARK.get();
        boolean perProcess = typeId == StatsFileDescriptor.TYPE_PROVIDER || typeId == StatsFileDescriptor.TYPE_OTHER;
        this.owner = mark == null || perProcess ? owner : owner + " (" + mark + ")";
        this.mbean = CounterGroupMBean.register(this, typeId);
    }

    /** The mark of {@link #marked}'s scope, inherited by the threads started in it; null outside. */
    private static final InheritableThreadLocal<String> MARK = new InheritableThreadLocal<>();

    /**
     * Runs {@code work} with the groups of the objects (endpoints, receive sides, queues) made
     * meanwhile by this thread, or by a thread started in it, labelled {@code "<owner> (<mark>)"}:
     * a tool's private objects — the JIT warm-up's connections of {@code jofi pingpong} — are then
     * told apart from the real ones in {@code jofi stat}. A provider's own per-process groups are
     * never marked. Control path.
     */
    public static void marked(String mark, Runnable work) {
        String outer = MARK.get();
        MARK.set(mark);
        try {
            work.run();
        } finally {
            if (outer == null) {
                MARK.remove();
            } else {
                MARK.set(outer);
            }
        }
    }

    /** A number unique in this JVM, to tell objects of one kind apart in labels. */
    public static int nextNumber() {
        return SEQUENCE.incrementAndGet();
    }

    /**
     * The label prefix of an object of class {@code type}: its provider (the last segment of
     * its package, {@code io.jofi.provider.tcp} gives {@code tcp}), its class and a number.
     */
    public static String ownerLabel(Class<?> type) {
        return providerOwnerLabel(null, type);
    }

    /**
     * The label prefix of an object of class {@code type} serving {@code provider} (a layer such
     * as the rxm endpoint is labelled with the provider it runs over: {@code tcp/RxmEndpoint 4});
     * with {@code provider} null, as {@link #ownerLabel(Class)}.
     */
    public static String providerOwnerLabel(String provider, Class<?> type) {
        String p = provider;
        if (p == null) {
            String pkg = type.getPackageName();
            p = pkg.substring(pkg.lastIndexOf('.') + 1);
        }
        return p + "/" + type.getSimpleName() + " " + nextNumber();
    }

    /**
     * The label prefix of a {@code kind} (e.g. {@code CompletionQueue}) made by the code that
     * called into {@code self}'s constructors: its provider is the package of the first caller
     * outside {@code self} and its subclasses ({@code verbs/CompletionQueue 7} for a CQ the verbs
     * domain opened with its own constructor call; the util layer's fabric and domain name their
     * provider instead, as the walk would find the util layer). Control path: walks the stack once.
     */
    public static String ownerLabel(String kind, Class<?> self) {
        Class<?> maker = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
                .walk(frames -> frames.map(StackWalker.StackFrame::getDeclaringClass)
                        .filter(c -> c != CounterGroup.class && !self.isAssignableFrom(c))
                        .findFirst().orElse(self));
        String pkg = maker.getPackageName();
        return pkg.substring(pkg.lastIndexOf('.') + 1) + "/" + kind + " " + nextNumber();
    }

    /** A new counter of this group named {@code name}. */
    public synchronized StatsCounter counter(String name) {
        StatsCounter c = file.allocate(typeId, owner + ": " + name);
        counters.add(c);
        return c;
    }

    /**
     * Publishes where the group's object is, beside its counters: {@code "local A"}, with a
     * peer {@code "local A peer B"}, with {@code peers} above 1 {@code "local A peer B and
     * others"} (addresses as {@code 127.0.0.1:9228}, {@code [::1]:9228}; null: not known). A
     * record of its own in the file ({@code StatsFileDescriptor.KIND_DESCRIPTION}) replaces the
     * one before, which is reused a second later, as a freed counter's. Control path only: at
     * enable, connect, accept or the first peers, never per operation.
     */
    public synchronized void describeEnds(Object local, Object peer, long peers) {
        String text = "local " + address(local) + (peer == null || peers < 1 ? ""
                : " peer " + address(peer) + (peers > 1 ? " and others" : ""));
        if (closed || text.equals(descriptionText)) {
            return;
        }
        if (description != null) {
            file.free(description);
        }
        descriptionText = text;
        description = file.allocate(typeId, StatsFileDescriptor.KIND_DESCRIPTION, owner + ": " + text);
    }

    /** An end as {@code jofi stat} shows it: host and port without {@code InetSocketAddress}'s stray {@code /}. */
    private static String address(Object end) {
        if (end instanceof java.net.InetSocketAddress a) {
            String host = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
        }
        return end == null ? "?" : String.valueOf(end);
    }

    /** The label prefix. */
    public String owner() {
        return owner;
    }

    /** The counters made so far, in order. */
    public synchronized List<StatsCounter> counters() {
        return List.copyOf(counters);
    }

    /**
     * Frees the group once {@code owner} is unreachable: for owners without a close (a
     * receive queue). The action holds the group, never the owner.
     */
    public void freeWhenUnreachable(Object owner) {
        CleanerHolder.CLEANER.register(owner, this::close);
    }

    /** Frees every counter of the group (idempotent). */
    @Override
    public synchronized void close() {
        for (StatsCounter c : counters) {
            file.free(c);
        }
        counters.clear();
        if (description != null) {
            file.free(description);
            description = null;
        }
        closed = true;
        if (mbean != null) {
            mbean.unregister();
            mbean = null;
        }
    }
}
