package io.jofi.spi.util;

import io.jofi.Errno;
import java.nio.charset.StandardCharsets;

/**
 * Writes the generic {@code strerror} sentence of the util CQ and EQ (R3), and remembers the
 * error a queue's {@code readErr} handed out last, so that an entry without a provider error
 * number ({@code provErrno == 0}: an {@code FI_SOURCE_ERR} entry, a reject, the overrun entry)
 * is described by its {@code err} instead of by errno 0's "Success".
 *
 * <p>Why remember: {@code strerror(provErrno, errData)} is not given the entry's {@code err},
 * and {@code provErrno} 0 carries nothing to describe. fi_cq(3) ties {@code err_data} to the
 * last read ("valid until a subsequent read"), and applications call {@code strerror} right
 * after {@code readErr}: the entry they describe is the one last read, recognised by its
 * {@code errData} array (the caller's buffer or the provider's array, by identity). A call that
 * does not match it (another error was read since) gets a sentence saying that the provider
 * gave no number and the entry's {@code err} tells the cause — never "Success".
 *
 * <p>{@link #remember} stores three fields and allocates nothing (it runs in {@code readErr},
 * a data-path call). A {@code strerror} racing with another thread's {@code readErr} on the
 * same queue may describe that thread's error: the same caveat as {@code err_data} itself.
 */
final class ErrorSentence {
    /** How many error-data bytes the generic sentence shows in hex. */
    static final int HEX_BYTES = 32;

    private volatile int lastErr;
    private volatile int lastProvErrno;
    private volatile byte[] lastErrData;

    /** Records the error entry {@code readErr} just handed out ({@code errData} as the entry returns it). */
    void remember(int err, int provErrno, byte[] errData) {
        lastErrData = errData;
        lastProvErrno = provErrno;
        lastErr = err;
    }

    /**
     * {@code strerror}: the provider's {@code describer} sentence for a provider error number
     * when it gives one; otherwise the generic sentence — the errno text of {@code provErrno},
     * or for {@code provErrno == 0} the text of the remembered entry's {@code err} — followed by
     * the error data: quoted when it is text (a reason the provider wrote), else its size and
     * first bytes in hex.
     */
    String describe(ErrorDescriber describer, int provErrno, byte[] errData) {
        int size = errData == null ? 0 : errData.length;
        if (describer != null && provErrno != 0) {
            String s = describer.describe(provErrno, errData, size);
            if (s != null) {
                return s;
            }
        }
        StringBuilder sb = new StringBuilder(96 + 3 * Math.min(size, HEX_BYTES));
        if (provErrno != 0) {
            sb.append(Errno.strerror(provErrno)).append(" (provider error ").append(provErrno);
        } else {
            int err = lastErrData == errData && lastProvErrno == 0 ? lastErr : 0;
            if (err != 0) {
                sb.append(Errno.strerror(err)).append(" (err ").append(Errno.name(err))
                        .append("; the provider gave no error number of its own");
            } else {
                sb.append("No provider-specific error: the entry's err tells the cause (provider error 0");
            }
        }
        if (size > 0 && isText(errData, size)) {
            // a reason the provider wrote as text (a dropped connection's cause, a progress failure)
            sb.append(": \"").append(new String(errData, 0, size, StandardCharsets.UTF_8)).append('"');
        } else if (size > 0) {
            sb.append("; ").append(size).append(size == 1 ? " byte" : " bytes").append(" of error data:");
            for (int i = 0; i < Math.min(size, HEX_BYTES); i++) {
                sb.append(' ').append(Character.forDigit((errData[i] >> 4) & 0xF, 16))
                        .append(Character.forDigit(errData[i] & 0xF, 16));
            }
            if (size > HEX_BYTES) {
                sb.append(" ...");
            }
        }
        return sb.append(')').toString();
    }

    /** Whether {@code data} is printable text (ASCII or UTF-8 beyond it), not a binary address or blob. */
    private static boolean isText(byte[] data, int size) {
        for (int i = 0; i < size; i++) {
            int b = data[i] & 0xFF;
            if (b < 0x20 && b != '\t' || b == 0x7F) {
                return false;
            }
        }
        return true;
    }
}
