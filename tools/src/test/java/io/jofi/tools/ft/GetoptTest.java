package io.jofi.tools.ft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Getopt} splits words as glibc's getopt does for fabtests' option strings. */
class GetoptTest {
    private static final String RDM = "Uh" + FtProgram.ADDR_OPTS + FtProgram.INFO_OPTS;

    @Test
    void attachedSeparateGroupedAndPermuted() {
        Getopt g = new Getopt(RDM, List.of("127.0.0.1", "-ptcp", "-U", "-P", "9300", "-UK", "-e", "rdm"));
        assertEquals(List.of(new Getopt.Option('p', "tcp"), new Getopt.Option('U', null), new Getopt.Option('P', "9300"),
                new Getopt.Option('U', null), new Getopt.Option('K', null), new Getopt.Option('e', "rdm")), g.options());
        assertEquals(List.of("127.0.0.1"), g.operands());
        assertEquals(List.of(), g.errors());
    }

    @Test
    void optionalArgumentOnlyAttached() {
        Getopt g = new Getopt(RDM, List.of("-b", "host", "-E=4000"));
        assertEquals(List.of(new Getopt.Option('b', null), new Getopt.Option('E', "=4000")), g.options());
        assertEquals(List.of("host"), g.operands());
    }

    @Test
    void unknownLetterAndMissingArgumentAreQuestionMarks() {
        Getopt g = new Getopt(RDM, List.of("-Z", "--", "-U", "-P"));
        assertEquals(List.of(new Getopt.Option('?', null)), g.options());
        assertEquals(List.of("-U", "-P"), g.operands());
        Getopt missing = new Getopt(RDM, List.of("-P"));
        assertEquals(List.of(new Getopt.Option('?', null)), missing.options());
        assertEquals(List.of("option requires an argument -- 'P'"), missing.errors());
    }

    @Test
    void fabtestsCommonLettersSetTheOptions() {
        FtOptions o = new FtOptions();
        io.jofi.Info hints = new io.jofi.Info();
        o.apply('E', "=4000", hints);
        o.apply('I', "10x", hints);
        o.apply('e', "msg", hints);
        o.apply('C', "3", hints);
        assertEquals("4000", o.oobPort);
        assertEquals(10, o.iterations);
        assertEquals(io.jofi.EpType.MSG, hints.epAttr().type());
        assertEquals(3, o.numConnections);
    }
}
