package io.jofi.spi.util.stats;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The counters of one object (an endpoint, a queue), labelled {@code "<owner>: <name>"} and
 * freed together when the object ends ({@link #close()}); a JMX MBean meanwhile
 * ({@code io.jofi:type=Endpoint,provider=tcp,name=TcpEndpoint 3}). Control path only.
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

    /**
     * @param file   where the counters live ({@link StatsFile#process()})
     * @param typeId its objects' type ({@code StatsFileDescriptor.TYPE_*})
     * @param owner  the label prefix, e.g. {@code "tcp/TcpEndpoint 3"}
     */
    public CounterGroup(StatsFile file, int typeId, String owner) {
        this.file = file;
        this.typeId = typeId;
        this.owner = owner;
        this.mbean = CounterGroupMBean.register(this, typeId);
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
        if (mbean != null) {
            mbean.unregister();
            mbean = null;
        }
    }
}
