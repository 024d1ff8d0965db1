package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.WaitAttr;
import io.jofi.WaitObj;
import io.jofi.WaitObject;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import org.junit.jupiter.api.Test;

/**
 * {@code fi_trywait} on a wait set (docs/API.md "Use Fabric.tryWait before blocking, as in C"):
 * once the application drained the members, it must say "safe to block", and the set's FD
 * must then be quiet until a member has something again.
 */
class UtilWaitSetTryWaitTest {

    @Test
    void tryWaitOnAWaitSetAllowsBlockingOnceItsMembersAreDrained() throws Exception {
        UtilWaitSet set = new UtilWaitSet(new WaitAttr().waitObj(WaitObj.FD));
        UtilCompletionQueue cq = new UtilCompletionQueue(new CqAttr().size(8).waitObj(WaitObj.SET).waitSet(set), null);
        try (Selector selector = Selector.open()) {
            WaitObject.Fd fd = (WaitObject.Fd) set.getWait();
            fd.channel().register(selector, SelectionKey.OP_READ);
            CqEntry[] buf = {new CqEntry()};

            assertEquals(0, TryWait.tryWait(set), "nothing happened yet");
            assertEquals(0, cq.reserve());
            cq.complete("c1", Fi.FI_RECV, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            assertEquals(-Errno.EAGAIN, TryWait.tryWait(set), "a member has a completion");
            assertEquals(1, selector.selectNow(), "the set's FD is readable");
            selector.selectedKeys().clear();

            // The C loop: drain, try again; it must come to "safe to block" (a spurious
            // -EAGAIN or two is allowed, never one for ever).
            int rc = -Errno.EAGAIN;
            for (int i = 0; i < 3 && rc != 0; i++) {
                while (cq.read(buf, 1) > 0) {
                    // drain
                }
                rc = TryWait.tryWait(set);
            }
            assertEquals(0, rc, "tryWait keeps answering -EAGAIN although every member is drained");
            assertEquals(0, selector.selectNow(), "the set's FD stays readable with nothing to read");

            // And it wakes again for the next completion.
            assertEquals(0, cq.reserve());
            cq.complete("c2", Fi.FI_RECV, 0, null, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL);
            assertEquals(1, selector.select(10_000), "the set's FD is readable again");
            assertEquals(-Errno.EAGAIN, TryWait.tryWait(set));
        } finally {
            cq.close();
            set.close();
        }
    }
}
