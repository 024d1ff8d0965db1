package io.jofi.provider.tcp.wire;

import java.util.HexFormat;

/** Hex strings as docs/TCP-WIRE.md writes them (spaces between groups, "…" never inside a test string). */
final class Hex {

    private Hex() {
    }

    /** Parses hex digits, ignoring spaces. */
    static byte[] bytes(final String hex) {
        return HexFormat.of().parseHex(hex.replace(" ", ""));
    }

    /** Formats bytes as plain lower-case hex. */
    static String of(final byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    /** {@code count} zero bytes as hex. */
    static String zeros(final int count) {
        return "00".repeat(count);
    }
}
