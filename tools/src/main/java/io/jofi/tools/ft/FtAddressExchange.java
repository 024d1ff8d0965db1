package io.jofi.tools.ft;

import io.jofi.Fi;
import static io.jofi.tools.ft.FtCalls.call;
import static io.jofi.tools.ft.FtCalls.printErr;

/**
 * A session's RDM address exchange as fabtests' {@code ft_init_av} performs it: in band (the
 * client's name to the server's address, 1 byte back) or over the out-of-band socket
 * ({@code -b}/{@code -E}), each peer's address put in the AV as fi_av_insert takes it.
 */
final class FtAddressExchange {
    private FtAddressExchange() {
    }

    /** ft_init_av: the client sends its name to the server's address, the server answers with 1 byte (or -b/-E: over the socket). */
    static void initAv(FtSession s) {
        if (s.opts.oobAddressExchange) {
            exchangeAddressesOob(s);
            return;
        }
        if (s.opts.client()) {
            s.remoteFiAddr = avInsert(s, s.info.destAddr());
            byte[] name = call("fi_getname", () -> s.ep.getName());
            s.txBuf.put(0, name);
            s.tx(name.length, s.txCtx);
            s.rx(1);
        } else {
            s.getRxComp(s.rxSeq);
            byte[] name = new byte[FtSession.MAX_CTRL_MSG];
            s.rxBuf.get(0, name);
            s.remoteFiAddr = avInsert(s, address(s, name));
            s.postRx(s.rxSize, s.rxCtx);
            s.tx(1, s.txCtx);
        }
    }

    /** ft_exchange_addresses_oob: each side's name in a 256-byte control message over the socket. */
    static void exchangeAddressesOob(FtSession s) {
        byte[] name = call("fi_getname", () -> s.ep.getName());
        byte[] message = new byte[FtSession.MAX_CTRL_MSG];
        System.arraycopy(name, 0, message, 0, Math.min(name.length, FtSession.MAX_CTRL_MSG));
        s.oob.send(message);
        s.remoteFiAddr = avInsert(s, address(s, s.oob.receive(FtSession.MAX_CTRL_MSG)));
    }

    /**
     * The address at the start of a control message. fabtests hands the whole message to
     * fi_av_insert, whose C providers read as much as the address format says; JOFI's AV takes
     * an address of its exact length: a sockaddr_in is 16 bytes, a sockaddr_in6 28, a string
     * address ends at its NUL.
     */
    static byte[] address(FtSession s, byte[] message) {
        int length = switch (s.info.addrFormat()) {
            case SOCKADDR_IN -> 16;
            case SOCKADDR_IN6 -> 28;
            case ADDR_STR -> {
                int n = 0;
                while (n < message.length && message[n] != 0) {
                    n++;
                }
                yield n;
            }
            default -> message.length;
        };
        return java.util.Arrays.copyOf(message, length);
    }

    /** fi_av_insert of one address into the session's AV: its fi_addr_t, or fabtests' failure. */
    static long avInsert(FtSession s, byte[] address) {
        long[] fiAddr = {Fi.FI_ADDR_NOTAVAIL};
        int rc = s.av.insert(new byte[][] {address}, fiAddr, 0, null);
        if (rc < 0) {
            throw printErr("fi_av_insert", rc, null);
        }
        if (rc != 1) {
            throw new FtError(-1, "fi_av_insert: number of addresses inserted = " + rc
                    + "; number of addresses given = 1");
        }
        return fiAddr[0];
    }
}
