package io.jofi.spi.util;

import static io.jofi.spi.util.ReceiveFixture.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What a receive completion says (R2, R10, R12), through a {@link ReceiveQueue} and directly as verbs writes it. */
class ReceiveCompletionTest {
    private ReceiveFixture f;

    @BeforeEach
    void open() throws Exception {
        f = new ReceiveFixture();
    }

    @AfterEach
    void close() throws Exception {
        f.close();
    }

    @Test
    void truncationIsEtruncWithTheBytesPlacedAndOlen() {
        ByteBuffer buf = ByteBuffer.allocate(4);
        f.post(f.recv(buf, "t"));
        f.arrive(bytes(10, 1));
        CqErrEntry e = f.readErr();
        assertEquals(Errno.ETRUNC, e.err());
        assertEquals(4, e.len(), "R12: len = bytes placed");
        assertEquals(6, e.olen(), "R12: olen = bytes discarded");
        assertEquals(Fi.FI_RECV | Fi.FI_MSG, e.flags());
        assertArrayEquals(bytes(4, 1), buf.array());
        assertEquals(0, f.counter.read());
        assertEquals(1, f.counter.readErr());
    }

    @Test
    void truncationIsReportedEvenWithoutFiCompletion() {
        f.post(f.rq.newReceive().untagged("t", Fi.FI_ADDR_UNSPEC, 0).buffer(ByteBuffer.allocate(1)));
        f.arrive(bytes(2, 1));
        assertEquals(Errno.ETRUNC, f.readErr().err(), "R2: errors whatever FI_COMPLETION says");
    }

    @Test
    void withoutFiCompletionASuccessIsCountedButNotWrittenAndItsRoomComesBack() throws Exception {
        try (ReceiveFixture g = new ReceiveFixture(2, 16, 64, 1024)) {
            for (int i = 0; i < 3 * g.cq.capacity(); i++) {
                g.post(g.rq.newReceive().untagged(i, Fi.FI_ADDR_UNSPEC, 0).buffer(ByteBuffer.allocate(4)));
                g.arrive(bytes(1, 0));
            }
            g.assertEmpty();
            assertEquals(3L * g.cq.capacity(), g.counter.read());
        }
    }

    @Test
    void withoutSelectiveCompletionEverySuccessIsWritten() {
        f.rq.completion().bind(f.cq, false, f.counter);
        f.post(f.rq.newReceive().untagged("n", Fi.FI_ADDR_UNSPEC, 0).buffer(ByteBuffer.allocate(4)));
        f.arrive(bytes(1, 0));
        assertEquals("n", f.read().context(), "R2: FI_COMPLETION only gates on a selective CQ");
    }

    @Test
    void theSenderIsReportedOnlyWithFiSource() {
        f.post(f.recv(ByteBuffer.allocate(4), "a"));
        f.arrive(false, 0, bytes(1, 0), 5);
        f.read();
        assertEquals(Fi.FI_ADDR_NOTAVAIL, f.from[0], "R10: no FI_SOURCE");
        f.rq.completion().reportSource(true, false);
        f.post(f.recv(ByteBuffer.allocate(4), "b"));
        f.arrive(false, 0, bytes(1, 0), 5);
        f.read();
        assertEquals(5, f.from[0], "R10: FI_SOURCE");
    }

    @Test
    void anUnknownSenderUnderFiSourceErrIsEaddrnotavailWithItsAddress() {
        f.rq.completion().reportSource(true, true);
        byte[] raw = {10, 0, 0, 1, 0x12, 0x34};
        ByteBuffer buf = ByteBuffer.allocate(8);
        f.post(f.trecv(buf, "u", 3, 0));
        f.header.set(true, 3, true, 99, Fi.FI_ADDR_NOTAVAIL, raw, 2);
        PostedReceive r = f.rq.match(f.header);
        f.rq.complete(r, f.header, r.place(0, ByteBuffer.wrap(bytes(2, 1)), 0, 2));
        CqErrEntry e = f.readErr();
        assertEquals(Errno.EADDRNOTAVAIL, e.err());
        assertEquals(2, e.len(), "the data was received all the same");
        assertEquals(3, e.tag());
        assertEquals(99, e.data());
        assertEquals(Fi.FI_RECV | Fi.FI_TAGGED | Fi.FI_REMOTE_CQ_DATA, e.flags());
        assertArrayEquals(raw, Arrays.copyOf(e.errData(), e.errDataSize()));
        assertNotSame(raw, e.errData(), "a copy: the CQ keeps errData");
        assertEquals(1, f.counter.readErr(), "an error completion counts as an error");
        assertArrayEquals(bytes(2, 1), Arrays.copyOf(buf.array(), 2));
    }

    @Test
    void aKnownSenderUnderFiSourceErrIsASuccess() {
        f.rq.completion().reportSource(true, true);
        f.post(f.recv(ByteBuffer.allocate(8), "k"));
        f.header.set(false, 0, false, 0, 4, new byte[] {1}, 0);
        f.rq.complete(f.rq.match(f.header), f.header, 0);
        f.read();
        assertEquals(4, f.from[0]);
    }

    @Test
    void fiSourceErrWithoutFiSourceIsOff() {
        f.rq.completion().reportSource(false, true);
        f.post(f.recv(ByteBuffer.allocate(8), "k"));
        f.header.set(false, 0, false, 0, Fi.FI_ADDR_NOTAVAIL, new byte[] {1}, 0);
        f.rq.complete(f.rq.match(f.header), f.header, 0);
        assertEquals("k", f.read().context());
    }

    @Test
    void truncationWinsOverAnUnknownSender() {
        f.rq.completion().reportSource(true, true);
        f.post(f.recv(ByteBuffer.allocate(1), "t"));
        f.header.set(false, 0, false, 0, Fi.FI_ADDR_NOTAVAIL, new byte[] {1}, 3);
        f.rq.complete(f.rq.match(f.header), f.header, 1);
        assertEquals(Errno.ETRUNC, f.readErr().err());
    }

    @Test
    void dataAndTagAreZeroWhereTheyDoNotApply() {
        ReceiveCompletion w = f.rq.completion();
        assertEquals(0, f.cq.reserve());
        w.received("x", ReceiveCompletion.RECV_FLAGS, true, null, 0, 1, 0, 55, 66, Fi.FI_ADDR_NOTAVAIL, null);
        CqEntry e = f.read();
        assertEquals(0, e.data(), "no FI_REMOTE_CQ_DATA");
        assertEquals(0, e.tag(), "not tagged");
    }

    /** The direct form a hardware provider (verbs) uses for receives it posted to the device. */
    @Test
    void theDirectFormWritesWhatVerbsReports() {
        ReceiveCompletion w = f.rq.completion();
        ByteBuffer b = ByteBuffer.allocate(8);
        assertEquals(0, f.cq.reserve());
        w.received("v", ReceiveCompletion.RECV_FLAGS | Fi.FI_REMOTE_CQ_DATA, true, b, 0, 8, 0, 7, 0, 3, null);
        CqEntry e = f.read();
        assertEquals(7, e.data());
        assertEquals(8, e.len());
        assertEquals(0, f.cq.reserve());
        w.failed("c", ReceiveCompletion.RECV_FLAGS, b, 0, 0, 0, Fi.FI_ADDR_NOTAVAIL, Errno.ECANCELED, 0, null);
        CqErrEntry err = f.readErr();
        assertEquals(Errno.ECANCELED, err.err());
        assertEquals(1, f.counter.read());
        assertEquals(1, f.counter.readErr());
    }
}
