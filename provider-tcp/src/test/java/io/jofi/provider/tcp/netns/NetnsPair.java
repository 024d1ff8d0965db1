package io.jofi.provider.tcp.netns;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two network namespaces, "a" and "b", joined by a veth pair whose ends are both named
 * {@link #IFACE}: {@code a} has {@code 198.18.K.1/24} and {@code fd6a:6f66:69:K::1/64}, {@code b}
 * the {@code .2}/{@code ::2} of the same networks (the benchmarking range and a ULA prefix;
 * IPv6 without duplicate address detection, so both are usable at once). Closing it ends every
 * process started in it and removes both namespaces (the veth goes with them).
 *
 * <pre>
 *   namespace jofi-t-PID-TAG-a               namespace jofi-t-PID-TAG-b
 *   lo 127.0.0.1                             lo 127.0.0.1
 *   jofi0 198.18.K.1  fd6a:6f66:69:K::1 ==== jofi0 198.18.K.2  fd6a:6f66:69:K::2   (veth, MTU mtu)
 * </pre>
 */
final class NetnsPair implements AutoCloseable {
    /** The name of the veth end in each namespace. */
    static final String IFACE = "jofi0";
    private static final AtomicInteger NEXT = new AtomicInteger(1);

    final String a;
    final String b;
    private final int net;
    private final int mtu;
    private final List<NsProcess> processes = new ArrayList<>();

    /** Makes the pair (after {@link Netns#assumeUsable()}), tagged {@code tag} in the namespace names, with {@code mtu} on the link. */
    NetnsPair(String tag, int mtu) {
        Netns.assumeUsable();
        this.net = NEXT.getAndIncrement();
        this.a = Netns.add(tag + "-a");
        String bName;
        try {
            bName = Netns.add(tag + "-b");
        } catch (RuntimeException | Error e) {
            Netns.delete(a);
            throw e;
        }
        this.b = bName;
        this.mtu = mtu;
        try {
            link();
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /** The veth between the two, with its addresses and MTU, both ends up: made anew after {@link #removeLink}. */
    void link() {
        Netns.check("ip", "link", "add", IFACE, "netns", a, "type", "veth", "peer", "name", IFACE, "netns", b);
        address(a, 1);
        address(b, 2);
        mtu(mtu);
        Netns.check("ip", "-n", a, "link", "set", IFACE, "up");
        up(b);
    }

    private void address(String ns, int host) {
        Netns.check("ip", "-n", ns, "addr", "add", "198.18." + net + "." + host + "/24", "dev", IFACE);
        Netns.check("ip", "-n", ns, "addr", "add", "fd6a:6f66:69:" + net + "::" + host + "/64", "dev", IFACE, "nodad");
    }

    /** The IPv4 ({@code v6} false) or IPv6 address of namespace {@code ns}'s end. */
    String address(String ns, boolean v6) {
        int host = ns.equals(a) ? 1 : 2;
        return v6 ? "fd6a:6f66:69:" + net + "::" + host : "198.18." + net + "." + host;
    }

    /** Sets the MTU of both ends. */
    void mtu(int mtu) {
        Netns.check("ip", "-n", a, "link", "set", IFACE, "mtu", Integer.toString(mtu));
        Netns.check("ip", "-n", b, "link", "set", IFACE, "mtu", Integer.toString(mtu));
    }

    /** {@code ip link set jofi0 up} inside {@code ns}, then {@link #awaitCarrier()}. */
    void up(String ns) {
        Netns.check("ip", "-n", ns, "link", "set", IFACE, "up");
        awaitCarrier();
    }

    /**
     * Waits (at most 5 s) until both ends are operationally up: the kernel takes a carrier
     * change asynchronously, and a connect before it may find no route (ENETUNREACH).
     */
    private void awaitCarrier() {
        long deadline = System.nanoTime() + 5_000_000_000L;
        for (String end : new String[] {a, b}) {
            while (!isUp(end)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(IFACE + " in " + end + " did not come up: "
                            + Netns.check("ip", "-n", end, "link", "show", IFACE));
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted", e);
                }
            }
        }
    }

    private static boolean isUp(String ns) {
        try {
            Netns.Result r = Netns.run(java.util.List.of("ip", "-n", ns, "-o", "link", "show", IFACE));
            return r.status() == 0 && r.output().contains("state UP");
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** {@code ip link set jofi0 down} inside {@code ns}: the link is cut, the addresses stay. */
    void down(String ns) {
        Netns.check("ip", "-n", ns, "link", "set", IFACE, "down");
    }

    /**
     * A firewall inside {@code ns} that drops everything it would send to {@code peer}'s address
     * ({@code on}; a blackhole route, so nothing beyond iproute2 is needed), or removes it: the
     * peer's packets still arrive, none of the answers leave (a SYN is never answered).
     */
    void firewall(String ns, String peer, boolean on) {
        Netns.check("ip", "-n", ns, "route", on ? "add" : "del", "blackhole", address(peer, false) + "/32");
    }

    /** Removes the veth (both ends and their addresses) from inside {@code ns}. */
    void removeLink(String ns) {
        Netns.check("ip", "-n", ns, "link", "del", IFACE);
    }

    /** Starts {@code command} inside {@code ns} ({@code ip netns exec}); ended at {@link #close()}. */
    NsProcess start(String ns, List<String> command, List<String> environment) {
        NsProcess p = NsProcess.start(Netns.in(ns, command), environment);
        synchronized (processes) {
            processes.add(p);
        }
        return p;
    }

    /** Waits until something in {@code ns} listens on TCP {@code port} (bounded by {@code timeout}). */
    void awaitListening(String ns, int port, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String out = Netns.check("ip", "netns", "exec", ns, "ss", "-Hltn", "sport = :" + port);
            if (!out.isBlank()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("nothing listens on port " + port + " in " + ns + " after " + timeout);
            }
            Thread.sleep(20);
        }
    }

    /** Ends the processes started in the pair and removes both namespaces. */
    @Override
    public void close() {
        synchronized (processes) {
            for (NsProcess p : processes) {
                p.close();
            }
        }
        Netns.delete(a);
        if (b != null) {
            Netns.delete(b);
        }
    }
}
