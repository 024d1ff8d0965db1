package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * File-descriptor exhaustion (provider-tcp/README.md "Failure model"): when {@code accept} fails with {@code EMFILE}
 * the readiness stays, and the connection-management thread selected it again at once — 100 %
 * CPU for as long as the process had no descriptor, while legitimate clients timed out. Now it
 * stops accepting for {@link ConnectionSetupTimer#ACCEPT_BACKOFF_MS} at a time. A child JVM
 * under {@code ulimit -n 256} uses up its descriptors; its CM thread's CPU time over one second
 * with 3 connections waiting must stay bounded, and once descriptors are free the 3 are served.
 */
@Timeout(60)
class TcpAcceptBackoffTest {

    @Test
    void outOfDescriptorsTheCmThreadBacksOffAndRecovers() throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        String cp = System.getProperty("java.class.path");
        ProcessBuilder pb = new ProcessBuilder("bash", "-c",
                "ulimit -n 256 && exec \"$0\" -Xmx64m -XX:+UseSerialGC -cp \"$1\" " + AcceptStormChild.class.getName(),
                java, cp);
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process child = pb.start();
        List<Socket> clients = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII));
             OutputStream to = child.getOutputStream()) {
            String port = out.readLine();
            assertNotNull(port, "the child started");
            assertTrue(port.startsWith("port "), port);
            String full = out.readLine();
            assertTrue(full != null && full.startsWith("full "), String.valueOf(full));
            ByteBuffer req = ByteBuffer.allocate(TcpWireDescriptor.CM_HEADER_LENGTH);
            new CmMessage().set(TcpWireDescriptor.CM_TYPE_REQUEST, null, 0, 0).encode(req);
            for (int i = 0; i < 3; i++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(port.substring(5)));
                s.getOutputStream().write(req.array()); // waits in the kernel: the child cannot accept it
                clients.add(s);
            }
            to.write("measure\n".getBytes(StandardCharsets.US_ASCII));
            to.flush();
            String cpu = out.readLine();
            assertNotNull(cpu, "the child measured");
            String[] f = cpu.split(" ");
            long cpuMs = Long.parseLong(f[1]);
            long failures = Long.parseLong(f[5]);
            assertTrue(failures > 0, "accept failed for want of descriptors: " + cpu);
            // spinning took ~1000 ms of CPU (less on a loaded host); backing off 100 ms at a time takes a few
            assertTrue(cpuMs < 250, "the CM thread's CPU time over 1 s without descriptors: " + cpu);
            assertTrue(failures < 100, "accept retried at most every 100 ms or so: " + cpu);
            assertEquals("connreq 3", out.readLine(), "once descriptors are free the waiting connections are served");
            assertTrue(child.waitFor(10, TimeUnit.SECONDS));
            assertEquals(0, child.exitValue());
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            child.destroyForcibly();
        }
    }
}
