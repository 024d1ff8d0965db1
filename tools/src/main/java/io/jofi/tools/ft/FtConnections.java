package io.jofi.tools.ft;

import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.EqErrEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.WaitObj;
import static io.jofi.tools.ft.FtCalls.call;
import static io.jofi.tools.ft.FtCalls.printErr;

/**
 * A session's MSG connection steps as fabtests' {@code common/shared.c} performs them: the listening
 * server ({@code ft_start_server}), the accept ({@code ft_server_connect}), the connect
 * ({@code ft_client_connect}) and the EQ reads between them, each bounded by {@code --timeout}.
 */
final class FtConnections {
    private FtConnections() {
    }

    /** ft_start_server: fabric, EQ and a listening passive endpoint. */
    static void startServer(FtSession s) {
        s.initOob();
        Info pepInfo = FtGetinfo.getinfo(s);
        openPassive(s, pepInfo);
        call("fi_pep_bind", () -> s.pep.bind(s.eq, 0));
        call("fi_listen", () -> s.pep.listen());
    }

    /** The fabric, the EQ and the passive endpoint of {@code pepInfo} (neither bound nor listening). */
    static void openPassive(FtSession s, Info pepInfo) {
        call("fi_fabric", () -> s.fabric = s.track(s.fabrics.fabric(pepInfo.fabricAttr(), null)));
        call("fi_eq_open", () -> s.eq = s.track(s.fabric.openEq(new EqAttr().waitObj(WaitObj.UNSPEC), null)));
        call("fi_passive_ep", () -> s.pep = s.track(s.fabric.passiveEndpoint(pepInfo, null)));
    }

    /** ft_server_connect: the connection request, the endpoint, its receive posted, accept. */
    static void serverConnect(FtSession s) {
        s.info = retrieveConnReq(s);
        try {
            call("fi_domain", () -> s.domain = s.track(s.fabric.domain(s.info, null)));
            s.allocActiveRes(s.info);
            s.enableEpRecv();
            call("fi_accept", () -> s.ep.accept(null));
            completeConnect(s);
        } catch (FtError e) {
            try {
                s.pep.reject(s.info.handle(), null);
            } catch (FabricException ignored) {
                // the failure being reported is the first one; a reject that fails changes nothing for it
            }
            throw e;
        }
    }

    /** ft_client_connect. */
    static void clientConnect(FtSession s) {
        s.initOob();
        s.info = FtGetinfo.getinfo(s);
        s.openFabricRes();
        s.allocActiveRes(s.info);
        s.enableEpRecv();
        call("fi_connect", () -> s.ep.connect(s.info.destAddr(), null));
        completeConnect(s);
    }

    /** The FI_CONNREQ read from the EQ: its Info, whose handle is the request. */
    static Info retrieveConnReq(FtSession s) {
        EqEntry event = eqSread(s, "listen");
        if (event.event() != Fi.FI_CONNREQ) {
            throw new FtError(-Errno.FI_EOTHER, "Unexpected CM event " + event.event());
        }
        return event.info();
    }

    /** The FI_CONNECTED of the session's endpoint read from the EQ. */
    static void completeConnect(FtSession s) {
        EqEntry event = eqSread(s, "accept");
        if (event.event() != Fi.FI_CONNECTED || event.fid() != s.ep) {
            throw new FtError(-Errno.FI_EOTHER, "Unexpected CM event " + event.event() + " fid " + event.fid()
                    + " (ep " + s.ep + ")");
        }
    }

    /**
     * fi_eq_sread bounded by --timeout into the session's {@link FtSession#lastEvent}, which it
     * returns; an error entry is printed as fabtests' eq_readerr does.
     */
    static EqEntry eqSread(FtSession s, String what) {
        EqEntry event = s.lastEvent();
        int rc = s.eq.sread(event, s.timeoutMillis(), 0);
        if (rc == -Errno.EAVAIL) {
            EqErrEntry err = new EqErrEntry();
            s.eq.readErr(err, 0);
            throw new FtError(-err.err(), "fi_eq_sread " + what + ": " + Errno.strerror(err.err())
                    + " (prov_errno " + err.provErrno() + ")");
        }
        if (rc < 0) {
            throw printErr("fi_eq_sread", rc, what);
        }
        return event;
    }
}
