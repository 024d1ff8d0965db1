package io.jofi.provider.tcp;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.EqAttr;
import io.jofi.EventQueue;
import io.jofi.Fabric;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import java.nio.ByteBuffer;

/**
 * The child JVM of {@link TcpStoppedPeerTest}: a JOFI MSG endpoint (AUTO progress) that
 * connects to the parent's listener on 127.0.0.1:{@code args[0]}, keeps 64 receives posted
 * (reposting as they complete), and prints "ready" once connected — a live peer that acks
 * everything, until the parent stops it with {@code SIGSTOP}.
 */
public final class StoppablePeerChild {
    private StoppablePeerChild() {
    }

    public static void main(String[] args) throws Exception {
        TcpProvider provider = new TcpProvider();
        Info hints = new Info().caps(Fi.FI_MSG);
        hints.epAttr().type(EpType.MSG);
        hints.domainAttr().dataProgress(Progress.AUTO);
        Info info = provider.getInfo("127.0.0.1", args[0], 0, hints).get(0);
        Fabric fabric = provider.fabric(info.fabricAttr(), null);
        Domain domain = fabric.domain(info, null);
        EventQueue eq = fabric.openEq(new EqAttr(), "eq");
        CompletionQueue cq = domain.openCq(new CqAttr(), "cq");
        Endpoint ep = domain.endpoint(info, "child");
        ep.bind(eq, 0);
        ep.bind(cq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        ep.enable();
        ByteBuffer[] bufs = new ByteBuffer[64];
        for (int i = 0; i < bufs.length; i++) {
            bufs[i] = ByteBuffer.allocate(4096);
            ep.recv(bufs[i], null, Fi.FI_ADDR_UNSPEC, i);
        }
        ep.connect(info.destAddr(), null);
        TcpTestBed.awaitEvent(eq, Fi.FI_CONNECTED);
        System.out.println("ready");
        System.out.flush();
        CqEntry[] e = {new CqEntry()};
        while (true) {
            int rc = cq.read(e, 1);
            if (rc == 1) {
                int i = (Integer) e[0].context();
                bufs[i].clear();
                ep.recv(bufs[i], null, Fi.FI_ADDR_UNSPEC, i);
            } else if (rc == -io.jofi.Errno.EAVAIL) {
                cq.readErr(new io.jofi.CqErrEntry(), 0);
            } else {
                Thread.sleep(1);
            }
        }
    }
}
