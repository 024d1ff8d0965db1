package io.jofi.provider.rxm;

/**
 * What tests of the rxm layer (in the tcp provider's tests, which have a real MSG provider to run
 * it over) reach inside an {@link RxmEndpoint} for: its lock, held to keep its progress and
 * connection-management threads out for a moment, and one progress pass run by the test's own
 * thread — so that which thread reads an event is certain.
 */
public final class RxmTestAccess {
    private RxmTestAccess() {
    }

    /** The monitor that serialises the endpoint's posts, progress passes and its CM thread's work. */
    public static Object lockOf(RxmEndpoint ep) {
        return ep.lock;
    }

    /** Each connection's credit flow control as text ("credits: off", or the peer's credits and those due). */
    public static java.util.List<String> creditsOf(RxmEndpoint ep) {
        java.util.List<String> all = new java.util.ArrayList<>();
        for (RxmConnection c : ep.connections.connections()) {
            all.add(c.credits.toString());
        }
        return all;
    }

    /** One progress pass of the endpoint (the MSG EQ, then the MSG CQ) on the caller's thread, not waiting. */
    public static int progressPass(RxmEndpoint ep) {
        return ep.progress(0);
    }
}
