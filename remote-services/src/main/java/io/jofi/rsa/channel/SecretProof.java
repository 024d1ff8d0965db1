package io.jofi.rsa.channel;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The shared-secret proof of the handshake: HMAC-SHA256 over the exporter's fresh nonce and
 * the importer's own fabric address, compared in constant time. The nonce makes a recorded
 * proof useless for the next handshake; the address binds the proof to the importer that
 * the exporter will answer.
 */
final class SecretProof {
    static final int NONCE = 16;
    static final int MAC = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private SecretProof() {
    }

    static byte[] nonce() {
        byte[] nonce = new byte[NONCE];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    static long token() {
        long token;
        do {
            token = RANDOM.nextLong();
        } while (token == 0);
        return token;
    }

    static byte[] mac(byte[] secret, byte[] nonce, byte[] importerAddress) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(nonce);
            mac.update(importerAddress);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java SE runtime", e);
        }
    }

    static boolean verify(byte[] secret, byte[] nonce, byte[] importerAddress, byte[] proof) {
        return MessageDigest.isEqual(mac(secret, nonce, importerAddress), proof);
    }
}
