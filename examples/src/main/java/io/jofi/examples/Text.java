package io.jofi.examples;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The examples' payloads are words: this turns them into direct buffers (what every provider
 * takes without a copy; verbs needs them) and the bytes of a completion back into words.
 */
public final class Text {
    private Text() {
    }

    /** A direct buffer holding {@code text} in UTF-8, position 0, limit its length. */
    public static ByteBuffer direct(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
    }

    /** The {@code length} bytes of {@code buf} from {@code offset} as UTF-8 (positions untouched). */
    public static String of(ByteBuffer buf, int offset, int length) {
        byte[] bytes = new byte[length];
        buf.get(offset, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
