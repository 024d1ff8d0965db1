package io.jofi.tools.ft;

import io.jofi.EpType;
import io.jofi.Fi;
import io.jofi.Info;

/**
 * fabtests' {@code fi_rdm_multi_client}: an RDM server that plays {@code -I} pingpongs of
 * {@code -S} bytes (default 5 ... fabtests' 1000 and 1024) with each of {@code -C} clients one
 * after the other, each client's address taken by a new in-band exchange on the same endpoint; the
 * client side opens, plays and closes a whole fabric per client ({@code Starting client: N}).
 * {@code -U}: the sends with {@code FI_DELIVERY_COMPLETE}.
 */
final class RdmMultiClientProgram extends FtProgram {
    @Override
    String name() {
        return "fi_rdm_multi_client";
    }

    @Override
    String optstring() {
        return "URh" + ADDR_OPTS + INFO_OPTS + CS_OPTS;
    }

    @Override
    String description() {
        return "RDM multi-client test";
    }

    @Override
    boolean option(char letter, String arg, FtOptions opts, Info hints) {
        if (letter == 'U') {
            opts.applyDeliveryComplete(hints);
            return true;
        }
        if (letter == 'R') {
            // the first client's address for the next ones: JOFI's RDM endpoints take no given source name
            throw new FtError(-io.jofi.Errno.ENOSYS, "-R (reuse the first client's address) is not offered by JOFI");
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
        if (!s.opts.client()) {
            s.initFabric();
            for (int left = s.opts.numConnections; left > 0; ) {
                pingpong(s);
                if (--left > 0) {
                    FtAddressExchange.initAv(s);
                }
            }
            return;
        }
        for (int i = 0; i < s.opts.numConnections; i++) {
            s.out.println("Starting client: " + i);
            try (FtSession client = i == 0 ? s : s.another()) {
                client.initFabric();
                pingpong(client);
            }
        }
    }

    private static void pingpong(FtSession s) {
        s.out.println("Start ping-pong.");
        int size = (int) s.opts.transferSize;
        for (int i = 0; i < s.opts.iterations; i++) {
            if (s.opts.client()) {
                s.tx(size, s.txCtx);
                s.rx(size);
            } else {
                s.rx(size);
                s.tx(size, s.txCtx);
            }
        }
        s.out.println("Ping-pong succeeds.");
    }
}
