package io.jofi.provider.tcp;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Progress;
import io.jofi.provider.rxm.RxmSettings;
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
            warmUp(side);
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

    /**
     * Loads what serving the parent runs (accepting a connection, a rendezvous read, its
     * read-done) by one 64 KiB delivery-complete send of our own to {@code side}: a cold JVM on a
     * loaded host can take longer than the parent's short progress timeout to answer first.
     */
    private static void warmUp(RxmOverTcpTest.Side side) throws Exception {
        try (RxmOverTcpTest.Side other = new RxmOverTcpTest.Side(Progress.AUTO)) {
            long to = other.insert(side.ep.getName());
            io.jofi.Msg m = new io.jofi.Msg().buffer(ByteBuffer.allocateDirect(64 << 10), null).addr(to).context("warm-up");
            if (other.ep.sendMsg(m, Fi.FI_DELIVERY_COMPLETE | Fi.FI_COMPLETION) != 0) {
                throw new IllegalStateException("warm-up send refused");
            }
            RxmOverTcpTest.await(other.txCq, other, side);
        }
    }
}
