package io.jofi.provider.tcp.netns;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connection churn across two namespaces, the bounded variant of {@code provider-tcp/netns/soak.sh}:
 * 2,000 MSG connections one after another (connect, one delivery-complete send, close), the
 * descriptors and threads of both JVMs the same after the last as after the first 100 (the
 * resident memory is printed, not asserted: the heap grows as it likes).
 */
@Timeout(120)
class NetnsChurnTest {
    private static final Pattern STATS = Pattern.compile("stats (\\w+) rss=(\\d+) threads=(\\d+) fds=(\\d+)");

    @Test
    void twoThousandShortConnectionsLeaveNoDescriptorOrThread() throws Exception {
        int n = 2000;
        try (NetnsPair pair = new NetnsPair("churn", 1500)) {
            String addr = pair.address(pair.a, false);
            NsProcess server = pair.start(pair.a, ChildJvm.command(ChurnChild.class, List.of(),
                    List.of("server", addr, "7402", Integer.toString(n))), List.of());
            server.awaitLine("listening"::equals, Duration.ofSeconds(30));
            NsProcess client = pair.start(pair.b, ChildJvm.command(ChurnChild.class, List.of(),
                    List.of("client", addr, "7402", Integer.toString(n))), List.of());
            if (client.awaitExit(Duration.ofSeconds(90)) != 0) {
                throw new AssertionError(client.transcript() + Netns.check("ip", "-n", pair.b, "addr")
                        + Netns.check("ip", "-n", pair.b, "route"));
            }
            server.assertSucceeded(Duration.ofSeconds(10));
            flat("client", client);
            flat("server", server);
        }
    }

    private static void flat(String who, NsProcess p) {
        long[] warm = stats(p, "warm");
        long[] end = stats(p, "end");
        System.err.println("[netns] churn " + who + ": rss " + warm[0] + " -> " + end[0] + " KiB, threads " + warm[1]
                + " -> " + end[1] + ", fds " + warm[2] + " -> " + end[2]);
        assertTrue(end[1] <= warm[1] + 1, who + " threads grew\n" + p.transcript());
        assertTrue(end[2] <= warm[2] + 2, who + " descriptors grew\n" + p.transcript());
    }

    private static long[] stats(NsProcess p, String label) {
        for (String l : p.output()) {
            Matcher m = STATS.matcher(l);
            if (m.matches() && m.group(1).equals(label)) {
                return new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(3)), Long.parseLong(m.group(4))};
            }
        }
        throw new AssertionError("no '" + label + "' stats\n" + p.transcript());
    }
}
