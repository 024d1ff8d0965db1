package io.jofi.provider.tcp;

import static io.jofi.provider.tcp.TcpTestBed.awaitCompletion;
import static io.jofi.provider.tcp.TcpTestBed.awaitEvent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.CompletionQueue;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which manual passes read a connection's socket directly ({@link TcpConnection#poll}): one that
 * wrote since data last came awaits an answer and reads directly (its answer in one system
 * call), as does a receiver of large frames (the next piece is on its way); one that wrote
 * nothing since and received small frames, as a stream's receiver, is left to the pass's
 * {@code epoll_wait} — its empty reads would take the socket's lock against the sender's
 * delivery. Counted as the reading thread's read system calls ({@code syscr} of
 * {@code /proc/thread-self/io}, which counts a {@code read} that finds nothing and not
 * {@code epoll_wait}). Before the change every manual pass read every connection: the first
 * test read 15 system calls in 16 passes; before the large-frame rule the second read none.
 */
@Timeout(60)
class TcpPolledReadsTest {
    private static final int PASSES = 20_000;

    @Test
    void aConnectionThatOnlyReceivesIsNotReadWhileQuiet() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.MANUAL)) {
            connectFromAnAutoDomain(bed);
            receiveFromClient(bed, 8); // a stream's receiver: the client's message arrived, the server wrote nothing
            long reads = readsDuring(bed, PASSES);
            assertTrue(reads < PASSES / 20, reads + " read system calls in " + PASSES + " passes of a quiet receiver");
        }
    }

    @Test
    void aReceiverOfLargeFramesIsReadDirectly() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.MANUAL)) {
            connectFromAnAutoDomain(bed);
            // a stream of large frames: the next piece is on its way, a direct read takes it at once
            receiveFromClient(bed, 4 * TcpReceiver.SMALL_FRAME);
            long reads = readsDuring(bed, PASSES);
            assertTrue(reads > PASSES / 2, reads + " read system calls in " + PASSES + " passes after a large frame");
        }
    }

    @Test
    void aConnectionThatAwaitsAnAnswerIsReadDirectly() throws Exception {
        try (TcpTestBed bed = new TcpTestBed(Progress.MANUAL)) {
            connectFromAnAutoDomain(bed);
            receiveFromClient(bed, 8); // a request
            assertEquals(0, bed.server.send(ByteBuffer.allocateDirect(8), null, 0, "answer"));
            awaitCompletion(bed.serverCq);
            // the server answered and awaits the next request: every polled pass reads its
            // socket (15 in 16; the 16th is a selector pass)
            long reads = readsDuring(bed, PASSES);
            assertTrue(reads > PASSES / 2, reads + " read system calls in " + PASSES + " passes awaiting a request");
        }
    }

    /** The server receives one message of {@code size} bytes from the client and posts the next receive. */
    private static void receiveFromClient(TcpTestBed bed, int size) throws Exception {
        assertEquals(0, bed.server.recv(ByteBuffer.allocateDirect(size), null, Fi.FI_ADDR_UNSPEC, "rx"));
        assertEquals(0, bed.client.send(ByteBuffer.allocateDirect(size), null, 0, "tx"));
        awaitCompletion(bed.serverCq);
        assertEquals(0, bed.server.recv(ByteBuffer.allocateDirect(size), null, Fi.FI_ADDR_UNSPEC, "next"));
    }

    /**
     * Connects a client of another domain, with its own progress thread (AUTO), to the bed's
     * MANUAL server: this thread's passes then drive the server's connection alone.
     */
    private static void connectFromAnAutoDomain(TcpTestBed bed) throws Exception {
        Info auto = bed.info.copy();
        auto.domainAttr().dataProgress(Progress.AUTO);
        Domain other = bed.fabric.domain(auto, null);
        CompletionQueue otherCq = other.openCq(new CqAttr().format(CqFormat.DATA), "other-cq");
        bed.closeLater.add(otherCq);
        bed.closeLater.add(other);
        Endpoint client = other.endpoint(auto, "client");
        bed.client = client;
        client.bind(bed.clientEq, 0);
        client.bind(otherCq, Fi.FI_TRANSMIT | Fi.FI_RECV);
        client.enable();
        client.connect(bed.pep.getName(), null);
        bed.acceptServer(null, ep -> { });
        awaitEvent(bed.clientEq, Fi.FI_CONNECTED);
    }

    /** This thread's read system calls during {@code passes} empty reads of the server's CQ (manual passes). */
    private static long readsDuring(TcpTestBed bed, int passes) throws IOException {
        CqEntry[] entry = {new CqEntry()};
        long before = syscr();
        for (int i = 0; i < passes; i++) {
            assertEquals(-Errno.EAGAIN, bed.serverCq.read(entry, 1), "nothing to complete");
        }
        return syscr() - before;
    }

    private static long syscr() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/thread-self/io"))) {
            if (line.startsWith("syscr:")) {
                return Long.parseLong(line.substring("syscr:".length()).trim());
            }
        }
        throw new IllegalStateException("no syscr in /proc/thread-self/io");
    }
}
