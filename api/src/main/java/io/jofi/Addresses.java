package io.jofi;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Objects;

/**
 * Converts and prints endpoint addresses: the {@code byte[]} values of {@code Info.srcAddr()},
 * {@code Info.destAddr()}, {@code getName()}, {@code getPeer()} and address vector inserts, in
 * the format {@code Info.addrFormat()} names. The libfabric equivalents are the
 * {@code struct sockaddr_in}/{@code sockaddr_in6} layouts applications copy around, and
 * {@code fi_av_straddr(3)} / libfabric's {@code FI_ADDR_STR} parsing for the text forms.
 *
 * <p>Binary layouts are the ones Linux uses:
 * <ul>
 * <li>{@link AddrFormat#SOCKADDR_IN}: 16 bytes: {@code sin_family} = 2 ({@code AF_INET}) as a
 *     little-endian u16 (host order on x86-64 and aarch64), {@code sin_port} in network byte
 *     order, the 4 address bytes, 8 zero bytes.</li>
 * <li>{@link AddrFormat#SOCKADDR_IN6}: 28 bytes: {@code sin6_family} = 10 ({@code AF_INET6})
 *     little-endian, {@code sin6_port} in network byte order, {@code sin6_flowinfo} (u32),
 *     the 16 address bytes, {@code sin6_scope_id} as a little-endian u32.</li>
 * <li>{@link AddrFormat#SOCKADDR_IB}: 48 bytes of {@code struct sockaddr_ib}, family 27
 *     ({@code AF_IB}) little-endian; recognised and printed, not built from Java types.</li>
 * <li>{@link AddrFormat#ADDR_STR}: a NUL-terminated ASCII string starting with {@code fi_}.</li>
 * </ul>
 *
 * <p>Text forms, as libfabric prints them ({@link #toString(byte[])}) and reads them
 * ({@link #parse(String)}): {@code fi_sockaddr_in://127.0.0.1:9228},
 * {@code fi_sockaddr_in6://[::1]:9228} (a non-zero scope id is written {@code [fe80::1%2]}),
 * {@code fi_sockaddr_ib://[gid]:0xpkey:0xps:0xscope:0xport}, an {@code FI_ADDR_STR} address as
 * its own text, and anything else as {@code fi_addr_unspec://} followed by the bytes in hex.
 * Parsing never consults DNS: host parts must be numeric.
 */
public final class Addresses {

    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    private static final int AF_IB = 27;
    private static final int SOCKADDR_IN_LEN = 16;
    private static final int SOCKADDR_IN6_LEN = 28;
    private static final int SOCKADDR_IB_LEN = 48;

    private static final String IN_SCHEME = "fi_sockaddr_in";
    private static final String IN6_SCHEME = "fi_sockaddr_in6";
    private static final String IB_SCHEME = "fi_sockaddr_ib";
    private static final String UNSPEC_SCHEME = "fi_addr_unspec";
    private static final String SEP = "://";

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Addresses() {
    }

    // ------------------------------------------------------------------ binary <-> Java

    /**
     * The Linux {@code sockaddr_in} (16 bytes) or {@code sockaddr_in6} (28 bytes) of a socket
     * address; an IPv6 address keeps its scope id.
     *
     * @throws NullPointerException     if {@code address} is null
     * @throws IllegalArgumentException if {@code address} is unresolved
     */
    public static byte[] toSockaddr(InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        InetAddress ip = address.getAddress();
        if (ip == null) {
            throw new IllegalArgumentException("unresolved address " + address.getHostString() + ":"
                    + address.getPort() + ": resolve it before converting it to a sockaddr");
        }
        int port = address.getPort();
        if (ip instanceof Inet4Address) {
            byte[] b = new byte[SOCKADDR_IN_LEN];
            putFamily(b, AF_INET);
            putPort(b, port);
            System.arraycopy(ip.getAddress(), 0, b, 4, 4);
            return b;
        }
        Inet6Address ip6 = (Inet6Address) ip;
        byte[] b = new byte[SOCKADDR_IN6_LEN];
        putFamily(b, AF_INET6);
        putPort(b, port);
        // bytes 4..7: sin6_flowinfo = 0
        System.arraycopy(ip6.getAddress(), 0, b, 8, 16);
        int scope = ip6.getScopeId();
        b[24] = (byte) scope;
        b[25] = (byte) (scope >>> 8);
        b[26] = (byte) (scope >>> 16);
        b[27] = (byte) (scope >>> 24);
        return b;
    }

    /**
     * The socket address in a Linux {@code sockaddr_in} (16 bytes, family 2) or
     * {@code sockaddr_in6} (28 bytes, family 10). An IPv4-mapped IPv6 address stays an
     * {@link Inet6Address}, so that {@code toSockaddr(fromSockaddr(a))} gives {@code a} back
     * (flow info aside).
     *
     * @throws NullPointerException     if {@code sockaddr} is null
     * @throws IllegalArgumentException if the length or the family is not one of those
     */
    public static InetSocketAddress fromSockaddr(byte[] sockaddr) {
        Objects.requireNonNull(sockaddr, "sockaddr");
        int n = sockaddr.length;
        int family = family(sockaddr);
        try {
            if (n == SOCKADDR_IN_LEN && family == AF_INET) {
                byte[] ip = {sockaddr[4], sockaddr[5], sockaddr[6], sockaddr[7]};
                return new InetSocketAddress(InetAddress.getByAddress(ip), port(sockaddr));
            }
            if (n == SOCKADDR_IN6_LEN && family == AF_INET6) {
                byte[] ip = new byte[16];
                System.arraycopy(sockaddr, 8, ip, 0, 16);
                int scope = scope6(sockaddr);
                // -1: no scope, so that the address does not print as "...%0"
                Inet6Address a = Inet6Address.getByAddress(null, ip, scope == 0 ? -1 : scope);
                return new InetSocketAddress(a, port(sockaddr));
            }
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e.getMessage(), e); // cannot happen: lengths checked
        }
        throw new IllegalArgumentException("not a sockaddr_in or sockaddr_in6: " + n + " bytes"
                + (n >= 2 ? " with family " + family : "")
                + " (expected 16 bytes with family 2 (AF_INET)"
                + " or 28 bytes with family 10 (AF_INET6))"
                + (n > 0 ? "; got " + toString(sockaddr) : ""));
    }

    /**
     * The format of an address, judged from its bytes: 16 bytes with family 2 is
     * {@link AddrFormat#SOCKADDR_IN}, 28 bytes with family 10 {@link AddrFormat#SOCKADDR_IN6},
     * 48 bytes with family 27 {@link AddrFormat#SOCKADDR_IB}, printable ASCII starting with
     * {@code fi_} (optionally NUL-terminated) {@link AddrFormat#ADDR_STR}, anything else, and
     * {@code null}, {@link AddrFormat#UNSPEC}. Allocates nothing.
     */
    public static AddrFormat formatOf(byte[] addr) {
        if (addr == null) {
            return AddrFormat.UNSPEC;
        }
        int n = addr.length;
        int family = family(addr);
        if (n == SOCKADDR_IN_LEN && family == AF_INET) {
            return AddrFormat.SOCKADDR_IN;
        }
        if (n == SOCKADDR_IN6_LEN && family == AF_INET6) {
            return AddrFormat.SOCKADDR_IN6;
        }
        if (n == SOCKADDR_IB_LEN && family == AF_IB) {
            return AddrFormat.SOCKADDR_IB;
        }
        if (strLength(addr) >= 0) {
            return AddrFormat.ADDR_STR;
        }
        return AddrFormat.UNSPEC;
    }

    // ------------------------------------------------------------------ binary -> text

    /**
     * The address for people, in libfabric's text forms: {@code fi_sockaddr_in://127.0.0.1:9228},
     * {@code fi_sockaddr_in6://[::1]:9228}, {@code fi_sockaddr_ib://[gid]:0x..:0x..:0x..:0x..},
     * an {@code FI_ADDR_STR} address as its text, anything else as
     * {@code fi_addr_unspec://<hex>}; {@code null} gives {@code (null)}. {@link #parse(String)}
     * reads every form back.
     */
    public static String toString(byte[] addr) {
        if (addr == null) {
            return "(null)";
        }
        StringBuilder sb = new StringBuilder(48);
        switch (formatOf(addr)) {
            case SOCKADDR_IN:
                sb.append(IN_SCHEME).append(SEP);
                IpLiterals.appendIpv4(sb, addr, 4);
                sb.append(':').append(port(addr));
                break;
            case SOCKADDR_IN6: {
                sb.append(IN6_SCHEME).append(SEP).append('[');
                IpLiterals.appendIpv6(sb, addr, 8);
                int scope = scope6(addr);
                if (scope != 0) {
                    sb.append('%').append(Integer.toUnsignedString(scope));
                }
                sb.append("]:").append(port(addr));
                break;
            }
            case SOCKADDR_IB: {
                // struct sockaddr_ib: family(2) pkey(2, BE) flowinfo(4) gid(16) sid(8, BE)
                // sid_mask(8, BE) scope_id(8, BE as libfabric writes it)
                long sid = getLongBE(addr, 24);
                sb.append(IB_SCHEME).append(SEP).append('[');
                IpLiterals.appendIpv6(sb, addr, 8);
                int pkey = ((addr[2] & 0xFF) << 8) | (addr[3] & 0xFF);
                sb.append("]:0x").append(Integer.toHexString(pkey));
                sb.append(":0x").append(Long.toHexString((sid >>> 16) & 0xFFF));
                sb.append(":0x").append(Long.toHexString(getLongBE(addr, 40)));
                sb.append(":0x").append(Long.toHexString(sid & 0xFFFF));
                break;
            }
            case ADDR_STR: {
                int len = strLength(addr);
                for (int i = 0; i < len; i++) {
                    sb.append((char) addr[i]);
                }
                break;
            }
            default:
                sb.append(UNSPEC_SCHEME).append(SEP);
                for (byte b : addr) {
                    sb.append(HEX[(b >>> 4) & 0xF]).append(HEX[b & 0xF]);
                }
                break;
        }
        return sb.toString();
    }

    // ------------------------------------------------------------------ text -> binary

    /**
     * Reads an address in any of the forms {@link #toString(byte[])} prints. The scheme is
     * case-insensitive, as in libfabric. Also accepted: {@code fi_sockaddr_in://:port} and
     * {@code fi_sockaddr_in6://:port} (wildcard address), a missing {@code :port} (port 0), and
     * bare {@code 1.2.3.4:port} / {@code [v6]:port}. Any other text starting with {@code fi_}
     * becomes an {@code FI_ADDR_STR} address: its ASCII bytes and a terminating NUL.
     * Host names are refused, not resolved: use {@link #toSockaddr(InetSocketAddress)} for them.
     *
     * @throws NullPointerException     if {@code text} is null
     * @throws IllegalArgumentException if {@code text} is none of those forms
     */
    public static byte[] parse(String text) {
        Objects.requireNonNull(text, "text");
        int sep = text.indexOf(SEP);
        if (sep < 0) {
            if (startsWithIgnoreCase(text, "fi_")) {
                return addrStr(text);
            }
            if (text.startsWith("[")) {
                return parseIn6(text, text, 0);
            }
            if (!text.isEmpty() && Character.digit(text.charAt(0), 10) >= 0) {
                return parseIn(text, text, 0);
            }
            throw bad(text, "expected fi_sockaddr_in://a.b.c.d:port, fi_sockaddr_in6://[v6]:port,"
                    + " fi_sockaddr_ib://[gid]:pkey:ps:scope[:port], fi_addr_unspec://<hex> or an"
                    + " FI_ADDR_STR text starting with fi_ (host names are not resolved)");
        }
        String scheme = text.substring(0, sep).toLowerCase(Locale.ROOT);
        int from = sep + SEP.length();
        switch (scheme) {
            case IN_SCHEME:
                return parseIn(text, text, from);
            case IN6_SCHEME:
                return parseIn6(text, text, from);
            case IB_SCHEME:
                return parseIb(text, from);
            case UNSPEC_SCHEME:
                return parseHex(text, from);
            default:
                if (scheme.startsWith("fi_")) {
                    return addrStr(text);
                }
                throw bad(text, "unknown scheme '" + text.substring(0, sep) + "'");
        }
    }

    /**
     * Reads an address that must be of the given format. {@link AddrFormat#ADDR_STR} takes the
     * text verbatim (its ASCII bytes and a terminating NUL, even when it looks like
     * {@code fi_sockaddr_in://...}); {@link AddrFormat#UNSPEC} accepts whatever
     * {@link #parse(String)} accepts.
     *
     * @throws IllegalArgumentException if the text is malformed or of another format
     */
    public static byte[] parse(String text, AddrFormat format) {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(format, "format");
        if (format == AddrFormat.ADDR_STR) {
            return addrStr(text);
        }
        byte[] addr = parse(text);
        AddrFormat actual = formatOf(addr);
        if (format != AddrFormat.UNSPEC && actual != format) {
            throw bad(text, "it is an " + actual.fiName() + " address, not " + format.fiName());
        }
        return addr;
    }

    // ------------------------------------------------------------------ parsing helpers

    /** {@code :port}, {@code a.b.c.d:port}, {@code a.b.c.d} from {@code from}. */
    private static byte[] parseIn(String text, String s, int from) {
        byte[] b = new byte[SOCKADDR_IN_LEN];
        putFamily(b, AF_INET);
        int n = s.length();
        int colon = s.indexOf(':', from);
        int ipEnd = colon < 0 ? n : colon;
        if (ipEnd > from && !IpLiterals.parseIpv4(s, from, ipEnd, b, 4)) {
            throw bad(text, "'" + s.substring(from, ipEnd) + "' is not a numeric IPv4 address");
        }
        if (ipEnd == from && colon < 0) {
            throw bad(text, "no address and no port");
        }
        putPort(b, colon < 0 ? 0 : parsePort(text, s, colon + 1, n));
        return b;
    }

    /** {@code :port}, {@code [v6]:port}, {@code [v6]}, {@code [v6%scope]...} from {@code from}. */
    private static byte[] parseIn6(String text, String s, int from) {
        byte[] b = new byte[SOCKADDR_IN6_LEN];
        putFamily(b, AF_INET6);
        int n = s.length();
        if (from < n && s.charAt(from) == ':') {
            putPort(b, parsePort(text, s, from + 1, n));
            return b;
        }
        if (from >= n || s.charAt(from) != '[') {
            throw bad(text, "an IPv6 address must be written in brackets: [v6]:port");
        }
        int close = s.indexOf(']', from);
        if (close < 0) {
            throw bad(text, "missing ']'");
        }
        int ipEnd = close;
        int pct = s.indexOf('%', from);
        if (pct >= 0 && pct < close) {
            ipEnd = pct;
            int sc;
            try {
                sc = (int) parseDigits(s, pct + 1, close, 10, 0xFFFFFFFFL);
            } catch (NumberFormatException e) {
                throw bad(text, "the scope id '" + s.substring(pct + 1, close)
                        + "' is not a number (interface names are not looked up)");
            }
            b[24] = (byte) sc;
            b[25] = (byte) (sc >>> 8);
            b[26] = (byte) (sc >>> 16);
            b[27] = (byte) (sc >>> 24);
        }
        if (!IpLiterals.parseIpv6(s, from + 1, ipEnd, b, 8)) {
            throw bad(text, "'" + s.substring(from + 1, ipEnd) + "' is not a numeric IPv6 address");
        }
        int port = 0;
        if (close + 1 < n) {
            if (s.charAt(close + 1) != ':') {
                throw bad(text, "expected ':port' after ']'");
            }
            port = parsePort(text, s, close + 2, n);
        }
        putPort(b, port);
        return b;
    }

    /** {@code [gid]:pkey:ps:scope[:port]} from {@code from}, as libfabric's ofi_str_to_sib. */
    private static byte[] parseIb(String text, int from) {
        int n = text.length();
        if (from >= n || text.charAt(from) != '[') {
            throw bad(text, "expected fi_sockaddr_ib://[gid]:pkey:ps:scope[:port]");
        }
        int close = text.indexOf(']', from);
        if (close < 0 || close + 1 >= n || text.charAt(close + 1) != ':') {
            throw bad(text, "expected fi_sockaddr_ib://[gid]:pkey:ps:scope[:port]");
        }
        byte[] b = new byte[SOCKADDR_IB_LEN];
        putFamily(b, AF_IB);
        if (!IpLiterals.parseIpv6(text, from + 1, close, b, 8)) {
            throw bad(text, "'" + text.substring(from + 1, close)
                    + "' is not a GID in IPv6 notation");
        }
        long[] v = new long[4];
        int count = 0;
        int i = close + 2;
        while (i <= n) {
            int end = text.indexOf(':', i);
            if (end < 0) {
                end = n;
            }
            if (count == 4) {
                throw bad(text, "too many fields after the GID");
            }
            long max = count == 2 ? -1L : 0xFFFFL; // the scope id is 64-bit, the others 16-bit
            v[count] = parseNumber(text, i, end, max);
            count++;
            i = end + 1;
        }
        if (count < 3) {
            throw bad(text, "expected pkey, port space and scope id after the GID");
        }
        long pkey = v[0];
        long ps = v[1];
        long scope = v[2];
        long port = count == 4 ? v[3] : 0;
        b[2] = (byte) (pkey >>> 8);
        b[3] = (byte) pkey;
        if (ps != 0 && port != 0) {
            putLongBE(b, 24, (ps << 16) + port);
            // sid_mask = OFI_IB_IP_PS_MASK | OFI_IB_IP_PORT_MASK
            putLongBE(b, 32, 0xFFFFFFFFFFFF0000L | 0xFFFFL);
        }
        putLongBE(b, 40, scope);
        return b;
    }

    private static byte[] parseHex(String text, int from) {
        int n = text.length() - from;
        if ((n & 1) != 0) {
            throw bad(text, "odd number of hex digits");
        }
        byte[] b = new byte[n / 2];
        for (int i = 0; i < b.length; i++) {
            int hi = Character.digit(text.charAt(from + 2 * i), 16);
            int lo = Character.digit(text.charAt(from + 2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                throw bad(text, "not a hex digit at offset " + (from + 2 * i));
            }
            b[i] = (byte) ((hi << 4) | lo);
        }
        return b;
    }

    private static byte[] addrStr(String text) {
        int n = text.length();
        byte[] b = new byte[n + 1];
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                throw bad(text, "an FI_ADDR_STR address must be printable ASCII");
            }
            b[i] = (byte) c;
        }
        return b; // b[n] == 0: the terminating NUL
    }

    private static int parsePort(String text, String s, int from, int to) {
        try {
            return (int) parseDigits(s, from, to, 10, 0xFFFFL);
        } catch (NumberFormatException e) {
            throw bad(text, "'" + s.substring(from, to) + "' is not a port number (0-65535)");
        }
    }

    /** strtol(base 0)-like: {@code 0x} hex or decimal, at most {@code max} (unsigned). */
    private static long parseNumber(String text, int from, int to, long max) {
        try {
            if (to - from > 2 && text.charAt(from) == '0'
                    && (text.charAt(from + 1) == 'x' || text.charAt(from + 1) == 'X')) {
                return parseDigits(text, from + 2, to, 16, max);
            }
            return parseDigits(text, from, to, 10, max);
        } catch (NumberFormatException e) {
            throw bad(text, "'" + text.substring(from, to) + "' is not a number up to 0x"
                    + Long.toHexString(max));
        }
    }

    /**
     * The ASCII digits of {@code [from, to)} in {@code radix} as an unsigned 64-bit value.
     *
     * @throws NumberFormatException if empty, not digits, or above {@code max} (unsigned)
     */
    private static long parseDigits(String s, int from, int to, int radix, long max) {
        if (from >= to) {
            throw new NumberFormatException();
        }
        long v = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            int d = c < 0x80 ? Character.digit(c, radix) : -1;
            if (d < 0 || Long.compareUnsigned(v, Long.divideUnsigned(-1L - d, radix)) > 0) {
                throw new NumberFormatException(); // not a digit, or u64 overflow
            }
            v = v * radix + d;
        }
        if (Long.compareUnsigned(v, max) > 0) {
            throw new NumberFormatException();
        }
        return v;
    }

    // ------------------------------------------------------------------ byte helpers

    /** The little-endian u16 family, or -1 for fewer than 2 bytes. */
    private static int family(byte[] a) {
        return a.length < 2 ? -1 : (a[0] & 0xFF) | ((a[1] & 0xFF) << 8);
    }

    private static void putFamily(byte[] b, int family) {
        b[0] = (byte) family;
        b[1] = (byte) (family >>> 8);
    }

    private static int port(byte[] a) {
        return ((a[2] & 0xFF) << 8) | (a[3] & 0xFF);
    }

    private static void putPort(byte[] b, int port) {
        b[2] = (byte) (port >>> 8);
        b[3] = (byte) port;
    }

    private static int scope6(byte[] a) {
        return (a[24] & 0xFF) | ((a[25] & 0xFF) << 8) | ((a[26] & 0xFF) << 16)
                | ((a[27] & 0xFF) << 24);
    }

    private static long getLongBE(byte[] a, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (a[off + i] & 0xFF);
        }
        return v;
    }

    private static void putLongBE(byte[] b, int off, long v) {
        for (int i = 7; i >= 0; i--) {
            b[off + i] = (byte) v;
            v >>>= 8;
        }
    }

    /**
     * Length of the text of an {@code FI_ADDR_STR} address (before its NUL), or -1 if the bytes
     * are not one: they must start with {@code fi_}, be printable ASCII up to the first NUL, and
     * only NULs may follow it. The {@code fi} is case-insensitive, as libfabric's schemes.
     */
    private static int strLength(byte[] a) {
        int n = a.length;
        if (n < 3 || (a[0] | 0x20) != 'f' || (a[1] | 0x20) != 'i' || a[2] != '_') {
            return -1;
        }
        int len = n;
        for (int i = 3; i < n; i++) {
            int c = a[i];
            if (c == 0) {
                if (len == n) {
                    len = i;
                }
            } else if (len != n || c < 0x20 || c > 0x7E) {
                return -1;
            }
        }
        return len;
    }

    private static boolean startsWithIgnoreCase(String s, String prefix) {
        return s.regionMatches(true, 0, prefix, 0, prefix.length());
    }

    private static IllegalArgumentException bad(String text, String why) {
        return new IllegalArgumentException("cannot parse address \"" + text + "\": " + why);
    }
}
