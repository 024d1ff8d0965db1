package io.jofi.tools.ft;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/** The fabtests functional programs {@code ./jofi ft} plays, by fabtests' name. */
final class FtPrograms {
    private static final Map<String, Supplier<FtProgram>> PROGRAMS = new LinkedHashMap<>();

    static {
        PROGRAMS.put("fi_msg", MsgProgram::new);
        PROGRAMS.put("fi_rdm", RdmProgram::new);
        PROGRAMS.put("fi_cq_data", CqDataProgram::new);
        PROGRAMS.put("fi_unexpected_msg", UnexpectedMsgProgram::new);
        PROGRAMS.put("fi_cm_data", CmDataProgram::new);
        PROGRAMS.put("fi_msg_epoll", MsgEpollProgram::new);
        PROGRAMS.put("fi_poll", PollProgram::new);
        PROGRAMS.put("fi_bw", BwProgram::new);
        PROGRAMS.put("fi_rdm_multi_client", RdmMultiClientProgram::new);
        PROGRAMS.put("fi_multi_ep", MultiEpProgram::new);
        PROGRAMS.put("fi_av_xfer", AvXferProgram::new);
        PROGRAMS.put("fi_multi_recv", MultiRecvProgram::new);
        PROGRAMS.put("fi_msg_sockets", MsgSocketsProgram::new);
        PROGRAMS.put("fi_msg_inject", MsgInjectProgram::new);
        PROGRAMS.put("fi_rdm_tagged_peek", RdmTaggedPeekProgram::new);
        PROGRAMS.put("fi_recv_cancel", RecvCancelProgram::new);
    }

    private FtPrograms() {
    }

    static Set<String> names() {
        return Collections.unmodifiableSet(PROGRAMS.keySet());
    }

    /** A fresh instance of the program, or null for a name that is not one. */
    static FtProgram get(String name) {
        Supplier<FtProgram> factory = PROGRAMS.get(name);
        return factory == null ? null : factory.get();
    }
}
