package io.jofi.tools;

import java.nio.ByteBuffer;

/**
 * fabtests' data pattern for {@code -v}: byte {@code i} of every message is character
 * {@code i mod 62} of {@code 0-9a-zA-Z}, so any prefix of a filled buffer is the pattern of
 * that length. Filling on send and checking on receive makes a JOFI peer and a C fabtests
 * peer agree on what arrived; a mismatch is fabtests' "Data check error".
 */
public final class DataPattern {
    private static final byte[] ALPHABET =
            "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private DataPattern() {
    }

    /** Writes the pattern into {@code buf[0, size)} (absolute positions; the buffer's position is untouched). */
    public static void fill(ByteBuffer buf, int size) {
        for (int i = 0, k = 0; i < size; i++) {
            buf.put(i, ALPHABET[k]);
            if (++k == ALPHABET.length) {
                k = 0;
            }
        }
    }

    /**
     * Checks {@code buf[0, size)} against the pattern; throws fabtests' "Data check error" (as
     * a {@link CommandFailure}) at the first wrong byte. Allocates nothing while the data is right.
     */
    public static void check(ByteBuffer buf, int size) {
        for (int i = 0, k = 0; i < size; i++) {
            byte got = buf.get(i);
            if (got != ALPHABET[k]) {
                throw new CommandFailure(String.format(java.util.Locale.ROOT,
                        "Data check error (%c!=%c) at byte %d for buffer size %d",
                        (char) ALPHABET[k], (char) (got & 0xff), i, size));
            }
            if (++k == ALPHABET.length) {
                k = 0;
            }
        }
    }
}
