package io.jofi.tools.ft;

import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Info;

/**
 * fabtests' {@code fi_cq_data} ({@code -e msg|rdm}, default rdm): the client sends 1000 bytes with
 * remote CQ data {@code 0x0123456789abcdef} cut to the domain's {@code cq_data_size}; the server
 * reads one completion with {@code fi_cq_sread} and checks {@code FI_REMOTE_CQ_DATA} and the value.
 */
final class CqDataProgram extends FtProgram {
    private static final int SIZE = 1000;

    @Override
    String name() {
        return "fi_cq_data";
    }

    @Override
    String optstring() {
        return "h" + ADDR_OPTS + INFO_OPTS;
    }

    @Override
    String description() {
        return "A client-server example that transfers CQ data.\n";
    }

    @Override
    void configure(FtOptions opts, Info hints) {
        opts.compMethod = FtOptions.CompMethod.SREAD;
        if (opts.endpointType != null) {
            hints.epAttr().type(opts.endpointType);
        }
        hints.domainAttr().cqDataSize(4); // the least the program needs
        hints.mode(hints.mode() | Fi.FI_CONTEXT | Fi.FI_RX_CQ_DATA);
        hints.caps(Fi.FI_MSG);
    }

    @Override
    void run(FtSession s) {
        s.cqFormat = CqFormat.DATA;
        if (s.hints.epAttr().type() == EpType.MSG) {
            s.initFabricCm();
        } else {
            s.initFabric();
        }
        try {
            if (s.opts.client()) {
                s.out.printf("Posting send with CQ data: 0x%x%n", s.remoteCqData);
                s.postTx(SIZE, s.remoteCqData, s.txCtx);
                s.getTxComp(s.txSeq);
                s.out.println("Done");
            } else {
                s.out.println("Waiting for CQ data from client");
                CqEntry comp = s.sreadRx();
                if ((comp.flags() & Fi.FI_REMOTE_CQ_DATA) == 0) {
                    s.out.println("error, CQ data flag not set");
                    throw new FtError(-Errno.EBADFLAGS, "CQ data flag not set");
                }
                if (comp.data() != s.remoteCqData) {
                    s.out.printf("error, Expected data:0x%x, Received data:0x%x%n", s.remoteCqData, comp.data());
                    throw new FtError(-Errno.EIO, "wrong CQ data");
                }
                s.out.println("remote_cq_data: success");
            }
        } finally {
            s.shutdown();
        }
    }
}
