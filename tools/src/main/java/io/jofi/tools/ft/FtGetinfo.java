package io.jofi.tools.ft;

import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import static io.jofi.tools.ft.FtCalls.printErr;

import java.util.List;

/**
 * Picks a session's Info as fabtests' {@code ft_getinfo} with {@code ft_read_addr_opts} does: the
 * node and service from {@code -s}/{@code -B} or the server and {@code -P}, the first Info answered.
 */
final class FtGetinfo {
    private FtGetinfo() {
    }

    /** fabtests' ft_getinfo with ft_read_addr_opts: node and service from -s/-B or the server and -P. */
    static Info getinfo(FtSession s) {
        FtOptions opts = s.opts;
        Info hints = s.hints;
        if (hints.epAttr().type() == null || hints.epAttr().type() == EpType.UNSPEC) {
            hints.epAttr().type(EpType.RDM);
        }
        String node;
        String service;
        long flags = 0;
        if (opts.dstAddr != null && (opts.srcAddr != null || opts.oobPort == null)) {
            String port = opts.dstPort != null ? opts.dstPort : FtOptions.DEFAULT_PORT;
            if (opts.srcAddr != null || opts.srcPort != null) {
                hints.srcAddr(first(s, opts.srcAddr, opts.srcPort, Fi.FI_SOURCE, hints.copy()).srcAddr());
            }
            node = opts.dstAddr;
            service = port;
        } else {
            node = opts.srcAddr;
            service = opts.srcPort != null ? opts.srcPort : FtOptions.DEFAULT_PORT;
            flags = Fi.FI_SOURCE;
        }
        return first(s, node, service, flags, hints);
    }

    /** The first Info fi_getinfo answers for {@code h}; none is fabtests' -FI_ENODATA. */
    static Info first(FtSession s, String node, String service, long flags, Info h) {
        List<Info> infos;
        try {
            infos = s.fabrics.getInfo(node, service, flags, h);
        } catch (FabricException e) {
            throw printErr("fi_getinfo", -e.errno(), e.getMessage());
        }
        if (infos.isEmpty()) {
            throw printErr("fi_getinfo", -Errno.ENODATA, null);
        }
        return infos.get(0);
    }
}
