package io.jofi.rsa.itests.agent;

import java.util.Arrays;

/** Payloads with a pattern that differs per size, and the check that one came back intact. */
final class Payloads {
    private Payloads() {
    }

    static byte[] of(int size) {
        byte[] payload = new byte[size];
        for (int i = 0; i < size; i++) {
            payload[i] = (byte) (i * 31 + size);
        }
        return payload;
    }

    static void check(byte[] sent, byte[] received) {
        if (!Arrays.equals(sent, received)) {
            throw new IllegalStateException("echo returned " + (received == null ? "null" : received.length + " bytes")
                    + " not equal to the " + sent.length + " bytes sent");
        }
    }
}
