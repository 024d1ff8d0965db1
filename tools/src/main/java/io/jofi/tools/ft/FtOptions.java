package io.jofi.tools.ft;

import io.jofi.EpType;
import io.jofi.Fi;
import io.jofi.Info;

/**
 * The options of a fabtests functional program, as fabtests' {@code struct ft_opts} and hints
 * hold them after {@code ft_parseinfo}, {@code ft_parse_addr_opts} and {@code ft_parsecsopts}:
 * the same letters with the same meanings and defaults ({@code INIT_OPTS}). A program accepts
 * only the letters of its option string ({@link Getopt}); the ones it gives a meaning of its own
 * ({@code -U}, {@code -v}, {@code -T} ...) are handled by the program before these.
 */
final class FtOptions {
    /** fabtests' default port ({@code default_port}) and out-of-band port ({@code default_oob_port}). */
    static final String DEFAULT_PORT = "9228";
    static final String DEFAULT_OOB_PORT = "3000";

    /** fabtests' {@code comp_method}: how a wait for completions waits. */
    enum CompMethod { SPIN, SREAD, FD, YIELD }

    String provider;
    String fabricName;
    String domainName;
    EpType endpointType;
    String srcAddr;
    String srcPort;
    String dstPort;
    String dstAddr;
    /** -b: address exchange and sync over the out-of-band socket; -E: the address exchange only. */
    boolean oobSync;
    boolean oobAddressExchange;
    String oobPort;
    /** -C: a persistent server that serves this many clients one after another. */
    boolean serverPersist;
    int numConnections = 1;
    int iterations = 1000;
    boolean iterationsGiven;
    int warmupIterations = 10;
    long transferSize = 1024;
    boolean transferSizeGiven;
    int windowSize = 64;
    CompMethod compMethod = CompMethod.SPIN;
    /** -t counter: completions counted by counters instead of CQs. */
    boolean counters;
    boolean machineReadable;
    /** fabtests' FT_OPT_VERIFY_DATA. */
    boolean verifyData;
    /** -U: every transmit with FI_DELIVERY_COMPLETE. */
    boolean deliveryComplete;
    /** fabtests' FT_OPT_SKIP_MSG_ALLOC: the program allocates its buffers; no first receive is posted. */
    boolean skipMsgAlloc;
    /** --timeout SECONDS: the bound on every wait (fabtests: -1, none). */
    int timeoutSeconds = -1;
    /** Set by -s/-B/-P... : the server role has no dst_addr. */
    boolean client() {
        return dstAddr != null;
    }

    /**
     * Applies one of fabtests' common letters (address, info and client-server options) to these
     * options and the hints; returns false for a letter that is none of them.
     */
    boolean apply(char letter, String arg, Info hints) {
        switch (letter) {
            case 's' -> srcAddr = arg;
            case 'B' -> srcPort = arg;
            case 'P' -> dstPort = arg;
            case 'b', 'E' -> {
                oobSync |= letter == 'b';
                oobAddressExchange = true;
                // fabtests takes "-b=PORT" / "-E=PORT": the argument after its first character
                oobPort = arg != null && arg.length() > 1 ? arg.substring(1) : DEFAULT_OOB_PORT;
            }
            case 'C' -> {
                serverPersist = true;
                numConnections = atoi(arg);
            }
            case 'F', 'a', 'K', 'Q', 'l', 'i' -> {
                // address format, AV name, fork, domain EQ, alignment, device id: accepted,
                // without effect on the providers JOFI has (no alternative format or fork mode)
            }
            case 'f' -> hints.fabricAttr().name(fabricName = arg);
            case 'd' -> hints.domainAttr().name(domainName = arg);
            case 'p' -> hints.fabricAttr().provName(provider = arg);
            case 'e' -> {
                if (arg.regionMatches(true, 0, "msg", 0, 3)) {
                    endpointType = EpType.MSG;
                } else if (arg.regionMatches(true, 0, "rdm", 0, 3)) {
                    endpointType = EpType.RDM;
                } else if (arg.regionMatches(true, 0, "dgram", 0, 5)) {
                    endpointType = EpType.DGRAM;
                }
                if (endpointType != null) {
                    hints.epAttr().type(endpointType);
                }
            }
            case 'M' -> {
                // -M mr_local: fabtests stops asking for FI_MR_LOCAL; the tools never need it
            }
            case 'D', 'H' -> throw new FtError(-io.jofi.Errno.ENOSYS, "FI_HMEM (device memory) is not offered by JOFI");
            case 'I' -> {
                iterationsGiven = true;
                iterations = atoi(arg);
            }
            case 'S' -> {
                if (arg.regionMatches(true, 0, "all", 0, 3) || arg.regionMatches(true, 0, "r:", 0, 2)) {
                    throw new FtError(-io.jofi.Errno.EINVAL, "-S all / r: (size ranges) are for the benchmark programs");
                }
                transferSizeGiven = true;
                transferSize = atol(arg);
            }
            case 'm' -> machineReadable = true;
            case 'c' -> {
                if (arg.regionMatches(true, 0, "sread", 0, 5)) {
                    compMethod = CompMethod.SREAD;
                } else if (arg.regionMatches(true, 0, "fd", 0, 2)) {
                    compMethod = CompMethod.FD;
                } else if (arg.regionMatches(true, 0, "yield", 0, 5)) {
                    compMethod = CompMethod.YIELD;
                }
            }
            case 't' -> counters |= arg.regionMatches(true, 0, "counter", 0, 7);
            case 'w' -> warmupIterations = atoi(arg);
            default -> {
                return false;
            }
        }
        return true;
    }

    /** Sets the transmit operation flags for -U. */
    void applyDeliveryComplete(Info hints) {
        deliveryComplete = true;
        hints.txAttr().opFlags(hints.txAttr().opFlags() | Fi.FI_DELIVERY_COMPLETE);
    }

    /** C's atoi: the leading decimal digits (with a sign), 0 when there are none. */
    static int atoi(String s) {
        return (int) atol(s);
    }

    /** C's atol. */
    static long atol(String s) {
        String t = s.strip();
        int i = 0;
        boolean negative = false;
        if (i < t.length() && (t.charAt(i) == '-' || t.charAt(i) == '+')) {
            negative = t.charAt(i++) == '-';
        }
        long value = 0;
        for (; i < t.length() && Character.isDigit(t.charAt(i)); i++) {
            value = value * 10 + (t.charAt(i) - '0');
        }
        return negative ? -value : value;
    }
}
