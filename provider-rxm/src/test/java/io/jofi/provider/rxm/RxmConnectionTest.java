package io.jofi.provider.rxm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.Errno;
import org.junit.jupiter.api.Test;

/**
 * What an application's RDM post answers for its MSG post's result: a MSG connection that went
 * down before rxm read its end is no fault of the post — {@code -EAGAIN}, so the post tried
 * again after the next pass connects anew (the random-packet hunt, {@code RxmRandomPacketTest},
 * met {@code ENOTCONN} there before); every other answer passes through.
 */
class RxmConnectionTest {

    @Test
    void aConnectionGoingDownAnswersTryAgain() {
        assertEquals(-Errno.EAGAIN, RxmConnection.refusedWhileEnding(-Errno.ENOTCONN));
        assertEquals(-Errno.EAGAIN, RxmConnection.refusedWhileEnding(-Errno.ECONNRESET));
        assertEquals(-Errno.EAGAIN, RxmConnection.refusedWhileEnding(-Errno.EPIPE));
    }

    @Test
    void everyOtherAnswerPassesThrough() {
        assertEquals(0, RxmConnection.refusedWhileEnding(0));
        assertEquals(-Errno.EAGAIN, RxmConnection.refusedWhileEnding(-Errno.EAGAIN));
        assertEquals(-Errno.EINVAL, RxmConnection.refusedWhileEnding(-Errno.EINVAL));
        assertEquals(-Errno.EMSGSIZE, RxmConnection.refusedWhileEnding(-Errno.EMSGSIZE));
        assertEquals(-Errno.ECANCELED, RxmConnection.refusedWhileEnding(-Errno.ECANCELED));
    }
}
