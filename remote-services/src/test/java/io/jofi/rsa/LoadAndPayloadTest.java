package io.jofi.rsa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.rsa.channel.ChannelSettings;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Many concurrent callers on one channel, and payloads far above the inline limit (RMA rendezvous). */
class LoadAndPayloadTest {
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void sixteenConcurrentCallersEachGetTheirOwnReplies(String provider) throws Exception {
        try (RsaPair pair = new RsaPair(provider)) {
            Echo echo = pair.importAs(Echo.class, pair.export(Echo.class, new EchoImpl(), Map.of()));
            ExecutorService callers = Executors.newFixedThreadPool(16);
            try {
                List<Future<Integer>> done = new ArrayList<>();
                for (int t = 0; t < 16; t++) {
                    int caller = t;
                    done.add(callers.submit(() -> {
                        for (int i = 0; i < 300; i++) {
                            assertEquals(caller * 1000 + i, echo.add(caller * 1000, i));
                            byte[] mine = {(byte) caller, (byte) i};
                            assertArrayEquals(mine, echo.echo(mine));
                        }
                        return caller;
                    }));
                }
                for (Future<Integer> f : done) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                callers.shutdownNow();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void oneMebibyteTravelsByRendezvousBothWays(String provider) {
        // Receive buffers hold a header and 64 KiB (ChannelSettings.MAX_INLINE): a 1 MiB message
        // sent inline would be truncated (ETRUNC), so these calls pass only by the RMA rendezvous.
        try (RsaPair pair = new RsaPair(provider)) {
            Echo echo = pair.importAs(Echo.class, pair.export(Echo.class, new EchoImpl(), Map.of()));
            byte[] big = new byte[1 << 20];
            new Random(7).nextBytes(big);
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(big, echo.echo(big));
            }
            ByteBuffer direct = ByteBuffer.allocateDirect(1 << 20);
            direct.put(big).flip();
            ByteBuffer back = echo.echoBuffer(direct);
            assertEquals(ByteBuffer.wrap(big), back);
            assertEquals(0, direct.position()); // the caller's buffer is not consumed
            assertEquals("hello small", echo.greet("small")); // and the channel goes on inline
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void peersWithDifferentInlineLimitsUnderstandEachOther(String provider) {
        ChannelSettings small = new ChannelSettings(30_000, null, 1024, 8, 100, null);
        try (RsaPair pair = new RsaPair(provider, RsaPair.settings(30_000, null), small)) {
            Echo echo = pair.importAs(Echo.class, pair.export(Echo.class, new EchoImpl(), Map.of()));
            for (int size : new int[] {100, 1000, 1100, 40_000, 65_000, 66_000}) {
                byte[] data = new byte[size];
                new Random(size).nextBytes(data);
                assertArrayEquals(data, echo.echo(data), size + " bytes");
            }
        }
    }
}
