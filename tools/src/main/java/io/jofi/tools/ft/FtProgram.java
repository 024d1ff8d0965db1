package io.jofi.tools.ft;

import io.jofi.Info;

/**
 * One fabtests functional program played on JOFI: its option string and usage line as its
 * {@code main} has them, the letters it gives a meaning of its own, the hints its {@code main}
 * sets after parsing, and its {@code run}, step for step over {@link FtSession}.
 */
abstract class FtProgram {
    /** fabtests' option-string pieces (shared.h). */
    static final String ADDR_OPTS = "B:P:s:a:b::E::C:F:";
    static final String INFO_OPTS = "f:d:p:K" + "D:i:H" + "e:M:";
    static final String CS_OPTS = ADDR_OPTS + "I:QS:mc:t:w:l";

    /** The name fabtests gives the program ({@code fi_msg}). */
    abstract String name();

    /** The letters its getopt accepts. */
    abstract String optstring();

    /** Its one-line description in the usage text. */
    abstract String description();

    /** Handles a letter of the program's own ({@code -U}, {@code -v} ...); false for the common ones. */
    boolean option(char letter, String arg, FtOptions opts, Info hints) {
        return false;
    }

    /** Sets the hints and options its {@code main} sets once the options are parsed. */
    abstract void configure(FtOptions opts, Info hints);

    /** Plays the program; a failure is an {@link FtError} with fabtests' return value. */
    abstract void run(FtSession s);
}
