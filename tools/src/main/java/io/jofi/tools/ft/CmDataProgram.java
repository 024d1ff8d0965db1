package io.jofi.tools.ft;

import io.jofi.EpType;
import io.jofi.EqErrEntry;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.Endpoint;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.tools.CommandFailure;
import io.jofi.tools.DataPattern;
import java.nio.ByteBuffer;

/**
 * fabtests' {@code fi_cm_data}: MSG connections with connection data of 1, 2, 4 ... up to the
 * endpoint's {@code FI_OPT_CM_DATA_SIZE} bytes (fabtests' pattern). Per size the server rejects
 * the first request with data (the client checks it in its {@code ECONNREFUSED} error entry),
 * accepts the second with data (the client checks it in {@code FI_CONNECTED}), both sides shut
 * down and read {@code FI_SHUTDOWN}; the client opens a new endpoint after each; a 4-byte sync over
 * the management socket ({@code -q}, default 2710) ends each size. Last the client connects with
 * one byte more than the maximum and expects {@code -FI_EINVAL}.
 */
final class CmDataProgram extends FtProgram {
    private String sockService = "2710";
    private long cmDataSize;

    @Override
    String name() {
        return "fi_cm_data";
    }

    @Override
    String optstring() {
        return "q:h" + ADDR_OPTS + INFO_OPTS;
    }

    @Override
    String description() {
        return "A MSG client-sever example that uses CM data.";
    }

    @Override
    boolean option(char letter, String arg, FtOptions opts, Info hints) {
        if (letter == 'q') {
            sockService = arg;
            return true;
        }
        return false;
    }

    @Override
    void configure(FtOptions opts, Info hints) {
        opts.skipMsgAlloc = true;
        hints.epAttr().type(EpType.MSG);
        hints.caps(Fi.FI_MSG);
    }

    @Override
    void run(FtSession s) {
        boolean client = s.opts.client();
        if (client) {
            s.info = FtGetinfo.getinfo(s);
            s.openFabricRes();
            s.allocActiveRes(s.info);
            s.enableEpRecv();
            cmDataSize = cmDataSize(s.ep);
        } else {
            FtConnections.startServer(s);
            cmDataSize = pepCmDataSize(s);
        }
        try (OobChannel sock = OobChannel.open(s.opts, sockService)) {
            for (int i = 1; i <= cmDataSize; i <<= 1) {
                s.out.println("trying with data size: " + i);
                if (client) {
                    client(s, i);
                } else {
                    server(s, i);
                }
                int ret = sock.syncInt(client, 0);
                if (ret != 0) {
                    throw new FtError(ret, "ft_sock_sync: the peer says " + ret);
                }
            }
            if (client) {
                s.out.println("trying with data size exceeding maximum: " + (cmDataSize + 1));
                try {
                    s.ep.connect(s.info.destAddr(), pattern((int) cmDataSize + 1));
                    s.out.println("expected -FI_EINVAL, got: [0]:Success");
                } catch (io.jofi.FabricException e) {
                    if (e.errno() != Errno.EINVAL) {
                        s.out.println("expected -FI_EINVAL, got: [" + -e.errno() + "]:" + Errno.strerror(e.errno()));
                        throw new FtError(-e.errno(), e.getMessage());
                    }
                }
            }
        }
    }

    private static long cmDataSize(Endpoint ep) {
        return FtCalls.call("fi_getopt", () -> ep.getOpt(Fi.FI_OPT_ENDPOINT, Fi.FI_OPT_CM_DATA_SIZE));
    }

    /**
     * fabtests asks the passive endpoint (fi_getopt on the pep); JOFI's PassiveEndpoint has no
     * getOpt, so an endpoint of the listening info, opened and closed unconnected, answers.
     */
    private static long pepCmDataSize(FtSession s) {
        Info info = FtGetinfo.getinfo(s);
        io.jofi.Domain domain = FtCalls.call("fi_domain", () -> s.fabric.domain(info, null));
        try {
            Endpoint ep = FtCalls.call("fi_endpoint", () -> domain.endpoint(info, null));
            try {
                return cmDataSize(ep);
            } finally {
                FtCalls.call("fi_close", () -> ep.close());
            }
        } finally {
            FtCalls.call("fi_close", () -> domain.close());
        }
    }

    private static byte[] pattern(int size) {
        ByteBuffer b = ByteBuffer.allocate(size);
        DataPattern.fill(b, size);
        return b.array();
    }

    private static void checkBuf(FtSession s, byte[] data, int size) {
        try {
            DataPattern.check(ByteBuffer.wrap(data, 0, size).slice(), size);
        } catch (CommandFailure e) {
            s.out.println(e.getMessage());
            throw new FtError(-Errno.EIO, e.getMessage());
        }
    }

    // ------------------------------------------------------------------ server

    private void server(FtSession s, int size) {
        Info request = serverListen(s, size);
        FtCalls.call("fi_reject", () -> s.pep.reject(request.handle(), pattern(size)));
        Info accepted = serverListen(s, size);
        s.info = accepted;
        try {
            FtCalls.call("fi_domain", () -> s.domain = s.track(s.fabric.domain(accepted, null)));
            s.allocActiveRes(accepted);
            s.enableEpRecv();
            FtCalls.call("fi_accept", () -> s.ep.accept(pattern(size)));
            EqEntry e = readEvent(s, "accept");
            if (e.event() != Fi.FI_CONNECTED || e.fid() != s.ep || e.payloadLength() != 0) {
                throw new FtError(-Errno.FI_EOTHER, "Unexpected CM event " + e.event() + " fid " + e.fid() + " (ep " + s.ep + ")");
            }
        } catch (FtError e) {
            try {
                s.pep.reject(accepted.handle(), null);
            } catch (io.jofi.FabricException | RuntimeException ignored) {
                // the failure reported is the first one
            }
            throw e;
        }
        s.shutdown();
        readShutdownEvent(s);
        s.closeNow(s.ep);
        s.closeNow(s.rxCq);
        s.closeNow(s.txCq);
        s.closeNow(s.domain);
        s.ep = null;
        s.rxCq = null;
        s.txCq = null;
        s.domain = null;
    }

    /** server_listen: a connection request carrying exactly {@code size} bytes of the pattern. */
    private static Info serverListen(FtSession s, int size) {
        EqEntry e = readEvent(s, "listen");
        if (e.event() != Fi.FI_CONNREQ) {
            throw new FtError(-Errno.FI_EOTHER, "Unexpected CM event " + e.event());
        }
        if (e.payloadLength() != size) {
            throw new FtError(-Errno.FI_EOTHER, "fi_eq_sread listen: " + e.payloadLength() + " bytes of connection data, "
                    + size + " expected");
        }
        checkBuf(s, e.payload(), size);
        return e.info();
    }

    // ------------------------------------------------------------------ client

    private void client(FtSession s, int size) {
        // client_expect_reject
        FtCalls.call("fi_connect", () -> s.ep.connect(s.info.destAddr(), pattern(size)));
        int rc = s.eq.sread(s.lastEvent(), s.timeoutMillis(), 0);
        if (rc != -Errno.EAVAIL) {
            throw FtCalls.printErr("fi_eq_sread", rc >= 0 ? -Errno.FI_EOTHER : rc, "connect: a rejection expected, got event "
                    + s.lastEvent().event());
        }
        EqErrEntry err = new EqErrEntry();
        s.eq.readErr(err, 0);
        if (err.err() != Errno.ECONNREFUSED) {
            throw new FtError(err.err(), "fi_eq_readerr: " + Errno.strerror(err.err()) + ", ECONNREFUSED expected");
        }
        checkBuf(s, err.errData() == null ? new byte[0] : err.errData(), err.errDataSize());
        openNewEp(s);
        // client_expect_accept
        FtCalls.call("fi_connect", () -> s.ep.connect(s.info.destAddr(), pattern(size)));
        EqEntry e = readEvent(s, "connect");
        if (e.event() != Fi.FI_CONNECTED || e.fid() != s.ep) {
            throw new FtError(-Errno.FI_EOTHER, "Unexpected CM event " + e.event() + " fid " + e.fid() + " (ep " + s.ep + ")");
        }
        if (e.payloadLength() != size) {
            throw new FtError(-Errno.FI_EOTHER, "fi_eq_sread connect: " + e.payloadLength() + " bytes of accept data, "
                    + size + " expected");
        }
        checkBuf(s, e.payload(), size);
        s.shutdown();
        readShutdownEvent(s);
        openNewEp(s);
    }

    /** client_open_new_ep: fi_connect once per endpoint: a fresh one, bound as the first. */
    private void openNewEp(FtSession s) {
        s.closeNow(s.ep);
        FtCalls.call("fi_endpoint", () -> s.ep = s.track(s.domain.endpoint(s.info, null)));
        s.enableEpRecv();
        cmDataSize = cmDataSize(s.ep);
    }

    private static EqEntry readEvent(FtSession s, String what) {
        FtConnections.eqSread(s, what);
        return s.lastEvent();
    }

    private static void readShutdownEvent(FtSession s) {
        EqEntry e = readEvent(s, "shutdown");
        if (e.event() != Fi.FI_SHUTDOWN || e.fid() != s.ep) {
            throw new FtError(-Errno.FI_EOTHER, "Unexpected CM event " + e.event() + " fid " + e.fid() + " (ep " + s.ep + ")");
        }
    }
}
