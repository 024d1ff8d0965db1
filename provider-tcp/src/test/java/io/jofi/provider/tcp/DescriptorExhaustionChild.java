package io.jofi.provider.tcp;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.PassiveEndpoint;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The child JVM of {@link TcpDescriptorExhaustionTest}, run under {@code ulimit -n}: an application
 * as an operator runs it — a passive endpoint on 127.0.0.1 and a domain (AUTO progress), no
 * warm-up of the logger or of anything else — that serves one real connection and message after
 * the parent's half-open connections used up its descriptors. Prints {@code port N}, then
 * {@code got TEXT} for the message and {@code threads ok} when every {@code jofi-} thread it
 * started with is still alive; {@code died NAME: CAUSE} for any thread that ended with an
 * uncaught throwable, {@code eq-error ...} for an error event. One line per step on stdout.
 */
public final class DescriptorExhaustionChild {
    private DescriptorExhaustionChild() {
    }

    public static void main(String[] args) throws Exception {
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            System.out.println("died " + t.getName() + ": " + e);
            System.out.flush();
        });
        TcpProvider provider = new TcpProvider();
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.MSG);
        hints.domainAttr().dataProgress(Progress.AUTO);
        Info info = provider.getInfo("127.0.0.1", "0", Fi.FI_SOURCE, hints).get(0);
        Fabric fabric = provider.fabric(info.fabricAttr(), null);
        Domain domain = fabric.domain(info, null);
        EventQueue eq = fabric.openEq(new EqAttr(), "eq");
        CompletionQueue cq = domain.openCq(new CqAttr().format(io.jofi.CqFormat.MSG), "cq");
        PassiveEndpoint pep = fabric.passiveEndpoint(info, "pep");
        pep.bind(eq, 0);
        pep.listen();
        List<Thread> engines = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("jofi-")) {
                engines.add(t);
            }
        }
        System.out.println("port " + io.jofi.Addresses.fromSockaddr(pep.getName()).getPort() + " engines " + engines.size());
        System.out.flush();
        EqEntry e = new EqEntry();
        EqErrEntry err = new EqErrEntry();
        Endpoint ep = null;
        ByteBuffer buf = ByteBuffer.allocate(64);
        CqEntry[] c = {new CqEntry()};
        while (true) {
            int rc = eq.read(e, 0);
            if (rc == -Errno.EAVAIL) {
                eq.readErr(err, 0);
                System.out.println("eq-error " + Errno.strerror(err.err()) + " "
                        + new String(err.errData(), 0, err.errDataSize(), StandardCharsets.UTF_8));
                System.out.flush();
            } else if (rc == 1 && e.event() == Fi.FI_CONNREQ && ep == null) {
                ep = domain.endpoint(e.info(), "server");
                ep.bind(eq, 0);
                ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
                ep.enable();
                ep.recv(buf, null, Fi.FI_ADDR_UNSPEC, "recv");
                ep.accept(null);
            }
            if (ep != null && cq.read(c, 1) == 1) {
                System.out.println("got " + new String(buf.array(), 0, (int) c[0].len(), StandardCharsets.US_ASCII));
                boolean alive = true;
                for (Thread t : engines) {
                    if (!t.isAlive()) {
                        System.out.println("dead " + t.getName());
                        alive = false;
                    }
                }
                System.out.println(alive ? "threads ok" : "threads lost");
                System.out.flush();
                System.exit(0);
            }
            Thread.sleep(2);
        }
    }
}
