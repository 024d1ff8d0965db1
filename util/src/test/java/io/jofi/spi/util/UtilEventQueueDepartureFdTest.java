package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.EqAttr;
import io.jofi.EqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.WaitObj;
import io.jofi.WaitObject;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import org.junit.jupiter.api.Test;

/**
 * R15 with an FD wait object: after the provider departed, an application that drained the
 * EQ and blocks on its FD must be woken (a read answers {@code -ENODEV} at once), as a CQ's FD
 * does — not sleep for ever on a queue that will never get another event.
 */
class UtilEventQueueDepartureFdTest {

    @Test
    void theFdOfADepartedEqStaysReadableAfterItIsDrained() throws Exception {
        UtilEventQueue eq = new UtilEventQueue(new EqAttr().size(4).waitObj(WaitObj.FD), null);
        try (Selector selector = Selector.open()) {
            ((WaitObject.Fd) eq.getWait()).channel().register(selector, SelectionKey.OP_READ);
            assertEquals(1, eq.post(Fi.FI_SHUTDOWN, null, "ctx", 0, null, null, 0));
            eq.depart();
            EqEntry e = new EqEntry();
            assertEquals(1, eq.read(e, 0), "departed: the queued event stays readable");
            assertEquals(Fi.FI_SHUTDOWN, e.event());
            assertEquals(-Errno.ENODEV, eq.read(e, 0));
            assertEquals(1, selector.selectNow(), "drained and departed: the FD must not fall silent");
        } finally {
            eq.close();
        }
    }
}
