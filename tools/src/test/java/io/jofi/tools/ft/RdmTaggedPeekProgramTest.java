package io.jofi.tools.ft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.Info;
import io.jofi.Progress;
import org.junit.jupiter.api.Test;

/**
 * {@code fi_rdm_tagged_peek} asks for manual progress, as libfabric 1.17's tcp, rxm and shm give
 * the C program: under a progress thread the server's sync read took the client's
 * {@code ft_finalize} message now and then (docs/FABTESTS.md item 18; with 200 ms injected
 * between the server's send completions and its sync receive, 1 run in 1 ended in a tag mismatch
 * under automatic progress over shm, none under manual).
 */
class RdmTaggedPeekProgramTest {

    @Test
    void asksForManualProgress() {
        FtProgram program = FtPrograms.get("fi_rdm_tagged_peek");
        Info hints = new Info();
        program.configure(new FtOptions(), hints);
        assertEquals(Progress.MANUAL, hints.domainAttr().dataProgress());
    }
}
