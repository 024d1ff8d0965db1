package io.jofi.provider.tcp.netns;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rest of {@link NetnsTcpTest}'s JOFI pingpong matrix across a veth between two network
 * namespaces: MSG and RDM, IPv4 and IPv6, MANUAL ({@code -c spin}) and AUTO ({@code -c sread})
 * progress, less the two representatives {@code mvn verify} runs there (each value of each
 * dimension is in those two; these six combine them otherwise). Tagged {@code soak}:
 * {@code mvn -B -Psoak verify -pl provider-tcp -am -Dsurefire.failIfNoSpecifiedTests=false}.
 * Three cases at a time, as there, each in a pair of its own.
 */
@Tag("soak")
@Timeout(240)
class NetnsPingpongMatrixTest {
    private static final ExecutorService CASES = Executors.newFixedThreadPool(3, r -> {
        Thread t = new Thread(r, "netns-pingpong-case");
        t.setDaemon(true);
        return t;
    });
    private static final Map<String, Future<?>> RUNNING = new ConcurrentHashMap<>();

    @BeforeAll
    static void startEveryCase() {
        Netns.assumeUsable();
        pingpongs().forEach(a -> {
            Object[] p = a.get();
            String name = NetnsTcpTest.pingpongName(p[0], p[1], p[2]);
            RUNNING.put(name, CASES.submit(() -> {
                try (NetnsPair pair = new NetnsPair(name, 1500)) {
                    NetnsTcpTest.pingpong(pair, (String) p[0], (Boolean) p[1], (String) p[2]);
                }
                return null;
            }));
        });
    }

    @AfterAll
    static void stop() {
        CASES.shutdownNow();
    }

    /** The matrix less {@link NetnsTcpTest#pingpongs()}. */
    static Stream<Arguments> pingpongs() {
        List<String> representatives = NetnsTcpTest.pingpongs()
                .map(a -> NetnsTcpTest.pingpongName(a.get()[0], a.get()[1], a.get()[2])).toList();
        List<Arguments> out = new ArrayList<>();
        for (String ep : List.of("msg", "rdm")) {
            for (boolean v6 : List.of(false, true)) {
                for (String wait : List.of("spin", "sread")) {
                    if (!representatives.contains(NetnsTcpTest.pingpongName(ep, v6, wait))) {
                        out.add(Arguments.of(ep, v6, wait));
                    }
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "pingpong -e {0} ipv6={1} -c {2}, 1 B, 4 MiB, 8 MiB - 1")
    @MethodSource("pingpongs")
    void pingpongAcrossTheLink(String ep, boolean v6, String wait) throws Exception {
        try {
            RUNNING.get(NetnsTcpTest.pingpongName(ep, v6, wait)).get(200, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            throw (Error) e.getCause();
        }
    }
}
