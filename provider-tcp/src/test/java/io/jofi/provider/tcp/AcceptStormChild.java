package io.jofi.provider.tcp;

import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import io.jofi.provider.tcp.wire.CmMessage;
import io.jofi.provider.tcp.wire.TcpWireDescriptor;
import java.util.ArrayList;
import java.util.List;

/**
 * The child JVM of {@link TcpAcceptBackoffTest} (run under {@code ulimit -n}): listens with a
 * passive endpoint, uses up every free file descriptor, and on the parent's word measures the
 * CPU time of its connection-management thread over one second while connections wait that
 * {@code accept} cannot take ({@code EMFILE}); then frees the descriptors and checks that the
 * waiting connections are served. It serves one connection request of its own first, so that
 * the accept path's classes are loaded while files can still be opened. Talks over stdin/stdout, one line per step.
 */
public final class AcceptStormChild {
    private AcceptStormChild() {
    }

    public static void main(String[] args) throws Exception {
        TcpProvider provider = new TcpProvider();
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.MSG);
        Info info = provider.getInfo("127.0.0.1", "0", Fi.FI_SOURCE, hints).get(0);
        Fabric fabric = provider.fabric(info.fabricAttr(), null);
        EventQueue eq = fabric.openEq(new EqAttr(), "eq");
        PassiveEndpoint pep = fabric.passiveEndpoint(info, "pep");
        pep.bind(eq, 0);
        pep.listen();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long cm = cmThreadId();
        mx.getThreadCpuTime(cm);
        // Load what runs after the descriptors are gone (classes come from directories: each load
        // opens a file, and a class the CM thread cannot load stops it): the warning, and the whole
        // accept path, by serving one connection request of our own before the descriptors go.
        System.getLogger(ConnectionSetupTimer.class.getName()).log(System.Logger.Level.INFO, "child ready");
        EqEntry e = new EqEntry();
        int port = io.jofi.Addresses.fromSockaddr(pep.getName()).getPort();
        servedOneRequest(pep, eq, e, port);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("port " + port);
        System.out.flush();
        // Another JVM thread may hold a descriptor for a moment (cgroup files, a class file) while
        // we take the last ones: take what it gave back after a pause, so that no accept succeeds.
        List<FileInputStream> hog = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            hogAll(hog);
            Thread.sleep(20);
        }
        System.out.println("full " + hog.size());
        System.out.flush();
        String word = in.readLine(); // the parent connected: accept fails with EMFILE from now on
        if (!"measure".equals(word)) {
            System.exit(3);
        }
        long before = mx.getThreadCpuTime(cm);
        long t0 = System.nanoTime();
        Thread.sleep(1000);
        long cpu = mx.getThreadCpuTime(cm) - before;
        long wall = System.nanoTime() - t0;
        long failures = ((TcpFabric) fabric).setupTimer().acceptFailures();
        for (FileInputStream f : hog) {
            f.close();
        }
        System.out.println("cpu " + cpu / 1_000_000 + " wall " + wall / 1_000_000 + " failures " + failures);
        System.out.flush();
        long deadline = System.nanoTime() + 10_000_000_000L;
        int connreqs = 0;
        while (connreqs < 3 && System.nanoTime() < deadline) {
            int rc = eq.read(e, 0);
            if (rc == 1 && e.event() == Fi.FI_CONNREQ) {
                connreqs++;
            } else if (rc == -Errno.EAGAIN) {
                Thread.sleep(5);
            }
        }
        System.out.println("connreq " + connreqs);
        System.out.flush();
        System.exit(0);
    }

    /** Opens descriptors until the process has none left. */
    private static void hogAll(List<FileInputStream> hog) {
        try {
            while (true) {
                hog.add(new FileInputStream("/dev/null"));
            }
        } catch (IOException full) {
            // the limit: what we wanted
        }
    }

    /** Connects to our own listener, sends a connection request, rejects it on the event queue. */
    private static void servedOneRequest(PassiveEndpoint pep, EventQueue eq, EqEntry e, int port) throws Exception {
        ByteBuffer req = ByteBuffer.allocate(TcpWireDescriptor.CM_HEADER_LENGTH);
        new CmMessage().set(TcpWireDescriptor.CM_TYPE_REQUEST, null, 0, 0).encode(req);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.getOutputStream().write(req.array());
            long deadline = System.nanoTime() + 10_000_000_000L;
            int rc;
            while ((rc = eq.read(e, 0)) != 1 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            if (rc != 1 || e.event() != Fi.FI_CONNREQ) {
                throw new IllegalStateException("the warm-up request was not served: rc " + rc + " " + e);
            }
            pep.reject(e.info().handle(), null);
            s.getInputStream().read(new byte[TcpWireDescriptor.CM_HEADER_LENGTH]); // the reject
        }
    }

    private static long cmThreadId() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("jofi-tcp-cm-")) {
                return t.getId();
            }
        }
        throw new IllegalStateException("no CM thread");
    }
}
