package io.jofi;

/**
 * IP address literals as {@code inet_pton} reads and glibc's {@code inet_ntop} writes them: the
 * dotted quad and the RFC 4291 text with at most one {@code ::} and an optional trailing IPv4
 * part, and the RFC 5952 compressed form. {@link Addresses}' text helpers; no state.
 */
final class IpLiterals {
    private IpLiterals() {
    }

    /** Dotted quad in {@code [from, to)} into {@code dst[off..off+3]}; no leading zeros. */
    static boolean parseIpv4(String s, int from, int to, byte[] dst, int off) {
        int part = 0;
        int value = 0;
        int digits = 0;
        for (int i = from; i <= to; i++) {
            char c = i < to ? s.charAt(i) : '.';
            if (c >= '0' && c <= '9') {
                if (digits > 0 && value == 0) {
                    return false; // leading zero, as inet_pton
                }
                value = value * 10 + (c - '0');
                if (++digits > 3 || value > 255) {
                    return false;
                }
            } else if (c == '.') {
                if (digits == 0 || part == 4) {
                    return false;
                }
                dst[off + part++] = (byte) value;
                value = 0;
                digits = 0;
            } else {
                return false;
            }
        }
        return part == 4;
    }

    /** RFC 4291 text in {@code [from, to)} (with at most one "::", optional trailing IPv4). */
    static boolean parseIpv6(String s, int from, int to, byte[] dst, int off) {
        int dbl = s.indexOf("::", from);
        if (dbl + 2 > to) {
            dbl = -1; // none, or beyond the range
        }
        if (dbl >= 0) {
            int again = s.indexOf("::", dbl + 1);
            if (again >= 0 && again < to - 1) {
                return false; // two "::" (or ":::")
            }
        }
        if (dbl < 0) {
            return parseGroups(s, from, to, dst, off, 16, true) == 16;
        }
        byte[] tmp = new byte[16];
        int head = dbl == from ? 0 : parseGroups(s, from, dbl, tmp, 0, 16, false);
        if (head < 0) {
            return false;
        }
        byte[] tail = new byte[16];
        int tl = dbl + 2 == to ? 0 : parseGroups(s, dbl + 2, to, tail, 0, 16, true);
        if (tl < 0 || head + tl > 14) {
            return false; // "::" stands for at least one group
        }
        System.arraycopy(tmp, 0, dst, off, head);
        for (int i = head; i < 16 - tl; i++) {
            dst[off + i] = 0;
        }
        System.arraycopy(tail, 0, dst, off + 16 - tl, tl);
        return true;
    }

    /** {@code h:h:...:h} (last may be a dotted quad if allowed); bytes written, or -1. */
    static int parseGroups(String s, int from, int to, byte[] dst, int off, int max,
                                   boolean allowV4) {
        int pos = off;
        int i = from;
        while (true) {
            int end = s.indexOf(':', i);
            if (end < 0 || end > to) {
                end = to;
            }
            if (end == to && allowV4 && s.indexOf('.', i) >= 0 && s.indexOf('.', i) < to) {
                if (pos + 4 - off > max || !parseIpv4(s, i, to, dst, pos)) {
                    return -1;
                }
                return pos + 4 - off;
            }
            int len = end - i;
            if (len < 1 || len > 4 || pos + 2 - off > max) {
                return -1;
            }
            int v = 0;
            for (int k = i; k < end; k++) {
                char c = s.charAt(k);
                int d = c < 0x80 ? Character.digit(c, 16) : -1;
                if (d < 0) {
                    return -1;
                }
                v = (v << 4) | d;
            }
            dst[pos++] = (byte) (v >>> 8);
            dst[pos++] = (byte) v;
            if (end == to) {
                return pos - off;
            }
            i = end + 1;
            if (i >= to) {
                return -1; // trailing ':'
            }
        }
    }

    // ------------------------------------------------------------------ formatting

    static void appendIpv4(StringBuilder sb, byte[] a, int off) {
        sb.append(a[off] & 0xFF).append('.').append(a[off + 1] & 0xFF).append('.')
          .append(a[off + 2] & 0xFF).append('.').append(a[off + 3] & 0xFF);
    }

    /** The 16 bytes at {@code off} as glibc's inet_ntop prints them (RFC 5952 compression). */
    static void appendIpv6(StringBuilder sb, byte[] a, int off) {
        int bestBase = -1;
        int bestLen = 0;
        int curBase = -1;
        int curLen = 0;
        for (int i = 0; i < 8; i++) {
            if (word(a, off, i) == 0) {
                if (curBase < 0) {
                    curBase = i;
                    curLen = 1;
                } else {
                    curLen++;
                }
                if (curLen > bestLen) {
                    bestBase = curBase;
                    bestLen = curLen;
                }
            } else {
                curBase = -1;
            }
        }
        if (bestLen < 2) {
            bestBase = -1;
        }
        for (int i = 0; i < 8; i++) {
            if (bestBase >= 0 && i >= bestBase && i < bestBase + bestLen) {
                if (i == bestBase) {
                    sb.append(':');
                }
                continue;
            }
            if (i != 0) {
                sb.append(':');
            }
            if (i == 6 && bestBase == 0
                    && (bestLen == 6 || (bestLen == 5 && word(a, off, 5) == 0xFFFF))) {
                appendIpv4(sb, a, off + 12); // ::a.b.c.d and ::ffff:a.b.c.d
                return;
            }
            sb.append(Integer.toHexString(word(a, off, i)));
        }
        if (bestBase >= 0 && bestBase + bestLen == 8) {
            sb.append(':');
        }
    }

    private static int word(byte[] a, int off, int i) {
        return ((a[off + 2 * i] & 0xFF) << 8) | (a[off + 2 * i + 1] & 0xFF);
    }
}
