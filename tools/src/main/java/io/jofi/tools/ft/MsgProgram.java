package io.jofi.tools.ft;

import io.jofi.EpType;
import io.jofi.Fi;
import io.jofi.Info;

/**
 * fabtests' {@code fi_msg}: a MSG connection (the server's receive posted before it accepts), the
 * client's greeting ({@code "Hello from Client!"} and its NUL, 19 bytes) checked by the server,
 * then {@code fi_shutdown} on both sides. Its options, usage line and hints are also
 * {@link MsgSocketsProgram}'s, which connects otherwise.
 */
class MsgProgram extends FtProgram {
    @Override
    String name() {
        return "fi_msg";
    }

    @Override
    String optstring() {
        return "h" + ADDR_OPTS + INFO_OPTS;
    }

    @Override
    String description() {
        return "A simple MSG client-sever example.";
    }

    @Override
    void configure(FtOptions opts, Info hints) {
        hints.epAttr().type(EpType.MSG);
        hints.caps(Fi.FI_MSG);
    }

    @Override
    void run(FtSession s) {
        s.initFabricCm();
        Greeting.sendOrReceive(s);
        s.shutdown();
    }
}
