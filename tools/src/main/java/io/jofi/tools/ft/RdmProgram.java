package io.jofi.tools.ft;

import io.jofi.EpType;
import io.jofi.Fi;
import io.jofi.Info;

/**
 * fabtests' {@code fi_rdm}: an RDM endpoint, the in-band address exchange, the client's greeting
 * checked by the server; {@code -U}: the sends with {@code FI_DELIVERY_COMPLETE}; {@code -C N}: a
 * server that greets N clients one after the other (each with its own address exchange).
 */
final class RdmProgram extends FtProgram {
    @Override
    String name() {
        return "fi_rdm";
    }

    @Override
    String optstring() {
        return "Uh" + ADDR_OPTS + INFO_OPTS;
    }

    @Override
    String description() {
        return "A simple RDM client-sever example.";
    }

    @Override
    boolean option(char letter, String arg, FtOptions opts, Info hints) {
        if (letter == 'U') {
            opts.applyDeliveryComplete(hints);
            return true;
        }
        return false;
    }

    @Override
    void configure(FtOptions opts, Info hints) {
        hints.epAttr().type(EpType.RDM);
        hints.caps(Fi.FI_MSG);
        hints.mode(Fi.FI_CONTEXT);
    }

    @Override
    void run(FtSession s) {
        s.initFabric();
        int connections = s.opts.serverPersist && !s.opts.client() ? s.opts.numConnections : 1;
        while (connections > 0) {
            Greeting.sendOrReceive(s);
            if (--connections > 0) {
                s.acceptNextClient();
            }
        }
    }
}
