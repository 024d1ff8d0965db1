package io.jofi.provider.rxm;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * What tests of the rxm layer (in the tcp provider's tests, which have a real MSG provider to run
 * it over) reach inside an {@link RxmEndpoint} for: its lock, held to keep its progress and
 * connection-management threads out for a moment, each connection's credits, and one progress
 * pass run by the test's own thread — so that which thread reads an event is certain.
 *
 * <p>The endpoint keeps these private (no part of rxm reads another's fields, and main code has
 * no getters for tests), so they are read here by reflection, by name: a rename in
 * {@code RxmEndpoint} fails every test that uses them at once, with the missing name.
 */
public final class RxmTestAccess {
    private RxmTestAccess() {
    }

    /** The monitor that serialises the endpoint's posts, progress passes and its CM thread's work. */
    public static Object lockOf(RxmEndpoint ep) {
        return field(ep, "lock");
    }

    /** Each connection's credit flow control as text ("credits: off", or the peer's credits and those due). */
    public static java.util.List<String> creditsOf(RxmEndpoint ep) {
        java.util.List<String> all = new java.util.ArrayList<>();
        RxmConnectionManager connections = (RxmConnectionManager) field(ep, "connections");
        for (RxmConnection c : connections.connections()) {
            all.add(c.credits.toString());
        }
        return all;
    }

    /** One progress pass of the endpoint (the MSG EQ, then the MSG CQ) on the caller's thread, not waiting. */
    public static int progressPass(RxmEndpoint ep) {
        try {
            Method progress = RxmEndpoint.class.getDeclaredMethod("progress", long.class);
            progress.setAccessible(true);
            return (int) progress.invoke(ep, 0L);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("RxmEndpoint has no progress(long) any more", e);
        }
    }

    private static Object field(RxmEndpoint ep, String name) {
        try {
            Field f = RxmEndpoint.class.getDeclaredField(name);
            f.setAccessible(true);
            return f.get(ep);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("RxmEndpoint has no field " + name + " any more", e);
        }
    }
}
