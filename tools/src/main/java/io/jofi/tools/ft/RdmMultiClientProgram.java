package io.jofi.tools.ft;

import io.jofi.EpType;
import io.jofi.Fi;
import io.jofi.Info;

/**
 * fabtests' {@code fi_rdm_multi_client}: an RDM server that plays {@code -I} pingpongs of
 * {@code -S} bytes (default 5 ... fabtests' 1000 and 1024) with each of {@code -C} clients one
 * after the other, each client's address taken by a new in-band exchange on the same endpoint; the
 * client side opens, plays and closes a whole fabric per client ({@code Starting client: N}).
 * {@code -U}: the sends with {@code FI_DELIVERY_COMPLETE}; {@code -R}: every client after the first
 * takes the first one's name ({@code fi_getname}) as its info's source address, so that the server
 * meets a new endpoint at an address it has met before.
 */
final class RdmMultiClientProgram extends FtProgram {
    private boolean reuseAddress;

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
            reuseAddress = true;
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
        byte[] firstName = null;
        for (int i = 0; i < s.opts.numConnections; i++) {
            s.out.println("Starting client: " + i);
            try (FtSession client = i == 0 ? s : s.another()) {
                initClient(client, firstName);
                if (reuseAddress && firstName == null) {
                    firstName = FtCalls.call("fi_getname", () -> client.ep.getName());
                }
                pingpong(client);
            }
        }
    }

    /** run_client's steps: ft_init_fabric's, with the first client's name as the source address if given. */
    private static void initClient(FtSession s, byte[] sourceName) {
        s.initOob();
        s.info = FtGetinfo.getinfo(s);
        s.openFabricRes();
        if (sourceName != null) {
            s.info.srcAddr(sourceName);
        }
        s.allocActiveRes(s.info);
        s.enableEpRecv();
        FtAddressExchange.initAv(s);
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
