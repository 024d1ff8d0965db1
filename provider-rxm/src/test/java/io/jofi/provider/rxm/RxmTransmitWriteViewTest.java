package io.jofi.provider.rxm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * A rendezvous by write posts one MSG write per cut of the sender's buffers; each takes its
 * range through the transmit's view of that buffer, one view per buffer kept while the same
 * buffer comes again (a new view per write allocated, and made the MSG provider's view cache
 * miss too). The range is counted from the buffer's position; the buffer itself is not touched.
 */
class RxmTransmitWriteViewTest {

    @Test
    void everyWriteOfABufferGoesThroughOneViewWithItsOwnRange() {
        RxmTransmit t = new RxmTransmit(0, ByteBuffer.allocateDirect(64));
        ByteBuffer buf = ByteBuffer.allocateDirect(1000);
        buf.position(100).limit(900);
        t.locals[0] = buf;
        ByteBuffer first = t.writeView(0, 0, 300);
        assertEquals(100, first.position());
        assertEquals(400, first.limit());
        ByteBuffer second = t.writeView(0, 300, 500);
        assertSame(first, second, "the same buffer again: the same view");
        assertEquals(400, second.position());
        assertEquals(900, second.limit());
        ByteBuffer back = t.writeView(0, 10, 20); // a smaller range after a larger one
        assertEquals(110, back.position());
        assertEquals(130, back.limit());
        assertEquals(100, buf.position(), "the buffer's own position is not touched");
        assertEquals(900, buf.limit(), "nor its limit");
    }

    @Test
    void anotherBufferInTheSlotGetsAViewOfItsOwn() {
        RxmTransmit t = new RxmTransmit(0, ByteBuffer.allocateDirect(64));
        ByteBuffer a = ByteBuffer.allocateDirect(100);
        ByteBuffer b = ByteBuffer.allocateDirect(100);
        t.locals[1] = a;
        ByteBuffer va = t.writeView(1, 0, 10);
        t.locals[1] = b;
        ByteBuffer vb = t.writeView(1, 0, 10);
        assertNotSame(va, vb);
        vb.put(0, (byte) 7);
        assertEquals(7, b.get(0), "the view is of the buffer in the slot now");
        assertEquals(0, a.get(0));
    }
}
