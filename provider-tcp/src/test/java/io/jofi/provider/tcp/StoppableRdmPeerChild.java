package io.jofi.provider.tcp;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.spi.util.rxm.RxmSettings;
import java.nio.ByteBuffer;
import java.util.HexFormat;

/**
 * The child JVM of {@link TcpRdmStoppedPeerTest}: a JOFI RDM endpoint (AUTO progress) on
 * 127.0.0.1 that keeps 16 untagged 64 KiB receives posted (reposting as they complete), posts
 * no tagged receive and holds at most 100 000 bytes of unexpected messages; prints its name in hex — a live peer that takes every untagged message and
 * leaves tagged ones unexpected, until the parent stops it with {@code SIGSTOP}.
 */
public final class StoppableRdmPeerChild {
    private StoppableRdmPeerChild() {
    }

    public static void main(String[] args) throws Exception {
        RxmSettings d = RxmSettings.defaults(); // unexpected messages up to 100 000 bytes: a third 64 KiB one waits
        RxmSettings settings = new RxmSettings(d.eagerLimit(), d.receiveBuffers(), d.transmitOps(), d.receiveQueueSize(),
                100_000, d.maxUnexpectedMessages(), d.msgCqSize(), false);
        try (RxmOverTcpTest.Side side = new RxmOverTcpTest.Side(Progress.AUTO, settings)) {
            ByteBuffer[] bufs = new ByteBuffer[16];
            for (int i = 0; i < bufs.length; i++) {
                bufs[i] = ByteBuffer.allocateDirect(64 << 10);
                side.ep.recv(bufs[i], null, Fi.FI_ADDR_UNSPEC, i);
            }
            System.out.println(HexFormat.of().formatHex(side.ep.getName()));
            System.out.flush();
            CqEntry[] e = {new CqEntry()};
            while (true) {
                int rc = side.rxCq.read(e, 1);
                if (rc == 1) {
                    int i = (Integer) e[0].context();
                    bufs[i].clear();
                    side.ep.recv(bufs[i], null, Fi.FI_ADDR_UNSPEC, i);
                } else if (rc == -Errno.EAVAIL) {
                    side.rxCq.readErr(new CqErrEntry(), 0);
                } else {
                    Thread.sleep(1);
                }
            }
        }
    }
}
