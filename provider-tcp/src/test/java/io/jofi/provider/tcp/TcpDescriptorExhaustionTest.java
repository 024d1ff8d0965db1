package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static io.jofi.provider.tcp.TcpTestBed.awaitEvent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Out of descriptors (provider-tcp/README.md "Failure model"): 400 half-open connections against
 * a process with {@code ulimit -n 256}. Its connection-management thread accepted until
 * {@code accept} failed with {@code EMFILE}, and logged the warning — the JVM's first
 * java.util.logging record, whose formatter loads time-zone data, which needs a descriptor: the
 * log call threw, the progress engine's failure report threw again, and the thread was gone for
 * good (nothing accepted, no half-open connection timed out, no event). Now the child, a plain
 * application in a real JVM under a real {@code ulimit}, still accepts a real connection and
 * receives its message once the half-open connections are gone, with every engine thread alive,
 * and says "accept failed" once for the episode.
 */
@Timeout(60)
class TcpDescriptorExhaustionTest {
    private static final int HALF_OPEN = 400;

    @Test
    void aProcessOutOfDescriptorsKeepsAcceptingOnceTheyAreBack() throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        Path log = Files.createTempFile("jofi-emfile-", ".log");
        ProcessBuilder pb = new ProcessBuilder("bash", "-c",
                "ulimit -n 256 && exec \"$0\" -Xmx64m -XX:+UseSerialGC -Djofi.tcp.connectionSetupTimeout=1000 -cp \"$1\" "
                        + DescriptorExhaustionChild.class.getName(),
                java, System.getProperty("java.class.path"));
        pb.redirectError(log.toFile());
        Process child = pb.start();
        List<Socket> halfOpen = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII))) {
            String first = out.readLine();
            assertTrue(first != null && first.startsWith("port "), first + "\n" + Files.readString(log));
            int port = Integer.parseInt(first.split(" ")[1]);
            for (int i = 0; i < HALF_OPEN; i++) {
                halfOpen.add(new Socket(InetAddress.getLoopbackAddress(), port)); // connects, sends nothing
            }
            Thread.sleep(1500); // the child accepts until EMFILE, its setup timeout (1 s) runs
            for (Socket s : halfOpen) {
                s.close();
            }
            halfOpen.clear();

            String got;
            try {
                got = sendOneMessage(port, "after the storm");
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; the child's stderr:\n" + Files.readString(log), e);
            }
            String line = out.readLine();
            String err = Files.readString(log);
            assertEquals("got after the storm", line, got + "\n" + err);
            assertEquals("threads ok", out.readLine(), err);
            assertTrue(child.waitFor(10, TimeUnit.SECONDS));
            long warnings = err.lines().filter(l -> l.startsWith("WARNING: tcp: accept failed")).count();
            assertEquals(1, warnings, "one warning for the episode:\n" + err);
            assertTrue(!err.contains("Error") && !err.contains("Exception"), "nothing thrown:\n" + err);
        } finally {
            for (Socket s : halfOpen) {
                s.close();
            }
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
            Files.deleteIfExists(log);
        }
    }

    /** Connects a JOFI MSG endpoint to the child and sends {@code text}; says what the send completed with. */
    private static String sendOneMessage(int port, String text) throws Exception {
        TcpProvider provider = new TcpProvider();
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.MSG);
        hints.domainAttr().dataProgress(Progress.AUTO);
        Info info = provider.getInfo("127.0.0.1", Integer.toString(port), 0, hints).get(0);
        try (Fabric fabric = provider.fabric(info.fabricAttr(), null);
             Domain domain = fabric.domain(info, null);
             EventQueue eq = fabric.openEq(new EqAttr(), "eq");
             CompletionQueue cq = domain.openCq(new CqAttr(), "cq");
             Endpoint ep = domain.endpoint(info, "client")) {
            ep.bind(eq, 0);
            ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
            ep.enable();
            ep.connect(info.destAddr(), null);
            awaitEvent(eq, Fi.FI_CONNECTED);
            assertEquals(0, ep.send(ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII)), null, Fi.FI_ADDR_UNSPEC, "send"));
            return "sent: " + awaitCompletion(cq).context();
        } finally {
            provider.deactivate();
        }
    }
}
