package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.AddressVector;
import io.jofi.AvAttr;
import io.jofi.CompletionQueue;
import io.jofi.Counter;
import io.jofi.CounterAttr;
import io.jofi.CqAttr;
import io.jofi.CqEntry;
import io.jofi.CqFormat;
import io.jofi.Domain;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.WaitObj;
import io.jofi.WaitObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code FI_WAIT_FD} across processes (R4, docs/API.md "FI_WAIT_FD"): a receive CQ and a receive
 * counter with FD wait objects, an application {@link Selector} blocked on both channels after
 * {@code Fabric.tryWait} returned 0, and a message sent by a child JVM: the selector wakes and
 * the next read finds the completion — in AUTO (the progress thread completes the receive) and
 * in MANUAL progress (nobody progresses while the application sleeps: the domain's wait bridge
 * turns the doorbell into readiness). {@code tryWait} answers {@code -EAGAIN} while a ring
 * holds records that the progress pass it drove left there. Every wait is bounded.
 */
@Timeout(120)
class ShmFdWaitTest {
    private static final long SELECT_MS = 20_000;
    private static Path dir;

    @BeforeAll
    static void directory() throws IOException {
        Path base = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        dir = Files.createTempDirectory(base, "shmfd-");
    }

    @AfterAll
    static void removeDirectory() throws IOException {
        ShmCrossProcessTest.deleteTree(dir);
    }

    /** An endpoint with FD-waitable receive CQ and counter. */
    private static final class Node implements AutoCloseable {
        final ShmProvider provider = new ShmProvider().directory(dir);
        final Fabric fabric;
        final Domain domain;
        final CompletionQueue txCq;
        final CompletionQueue rxCq;
        final Counter rxCntr;
        final AddressVector av;
        final Endpoint ep;

        Node(Progress progress) throws Exception {
            Info hints = new Info().caps(Fi.FI_MSG);
            hints.epAttr().type(EpType.RDM);
            hints.domainAttr().dataProgress(progress);
            Info info = provider.getInfo(null, null, 0, hints).get(0);
            fabric = provider.fabric(info.fabricAttr(), null);
            domain = fabric.domain(info, null);
            txCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED), null);
            rxCq = domain.openCq(new CqAttr().format(CqFormat.TAGGED).waitObj(WaitObj.FD), "rx");
            rxCntr = domain.openCounter(new CounterAttr().waitObj(WaitObj.FD), "cntr");
            av = domain.openAv(new AvAttr(), null);
            ep = domain.endpoint(info, null);
            ep.bind(txCq, Fi.FI_TRANSMIT);
            ep.bind(rxCq, Fi.FI_RECV);
            ep.bind(rxCntr, Fi.FI_RECV);
            ep.bind(av, 0);
            ep.enable();
        }

        String name() throws Exception {
            byte[] n = ep.getName();
            return new String(n, 0, n.length - 1, StandardCharsets.US_ASCII);
        }

        @Override
        public void close() throws Exception {
            ep.close();
            av.close();
            rxCntr.close();
            rxCq.close();
            txCq.close();
            domain.close();
            fabric.close();
        }
    }

    private static SelectableChannel channel(WaitObject w) {
        assertTrue(w instanceof WaitObject.Fd, "FD wait object: " + w);
        return ((WaitObject.Fd) w).channel();
    }

    /** Blocks in select until a channel is readable (bounded); returns the readable attachments. */
    private static List<Object> selectReadable(Selector selector) throws IOException {
        long deadline = System.currentTimeMillis() + SELECT_MS;
        while (true) {
            long left = deadline - System.currentTimeMillis();
            assertTrue(left > 0, "no FD became readable within " + SELECT_MS + " ms");
            if (selector.select(left) > 0) {
                List<Object> out = selector.selectedKeys().stream().map(SelectionKey::attachment).toList();
                selector.selectedKeys().clear();
                return out;
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Progress.class, names = {"AUTO", "MANUAL"})
    void aMessageFromAnotherProcessWakesASelectorOnTheCqAndCounterFds(Progress progress) throws Exception {
        try (Node node = new Node(progress); ChildPeer child = new ChildPeer(dir, "AUTO");
             Selector selector = Selector.open()) {
            child.expect("peer " + node.name(), "OK");
            SelectableChannel cqFd = channel(node.rxCq.getWait());
            SelectableChannel cntrFd = channel(node.rxCntr.getWait());
            cqFd.configureBlocking(false);
            cntrFd.configureBlocking(false);
            cqFd.register(selector, SelectionKey.OP_READ, "cq");
            cntrFd.register(selector, SelectionKey.OP_READ, "cntr");
            CqEntry[] one = {new CqEntry()};
            for (int round = 0; round < 3; round++) {
                ByteBuffer in = ByteBuffer.allocateDirect(256);
                assertEquals(0, node.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "r" + round));
                assertEquals(0, node.fabric.tryWait(node.rxCq, node.rxCntr), "nothing to read yet");
                assertEquals(0, selector.selectNow(), "an FD is readable with nothing to read");
                child.send("send 1 200");
                // Sleep on the application's selector only: no CQ call drives progress meanwhile.
                List<Object> ready = selectReadable(selector);
                assertFalse(ready.isEmpty());
                // The read after the wake-up finds the message (MANUAL: this read progresses).
                long deadline = System.currentTimeMillis() + SELECT_MS;
                int rc;
                while ((rc = node.rxCq.read(one, 1)) == -Errno.EAGAIN) {
                    assertTrue(System.currentTimeMillis() < deadline, "woken, but no completion arrived");
                    Thread.onSpinWait();
                }
                assertEquals(1, rc);
                assertEquals("r" + round, one[0].context());
                assertEquals(200, one[0].len());
                assertEquals((byte) 199, in.get(199));
                // AUTO: the progress thread may count just after it completed
                while (node.rxCntr.read() != round + 1) {
                    assertTrue(System.currentTimeMillis() < deadline, "counter " + node.rxCntr.read());
                    Thread.onSpinWait();
                }
                assertEquals("DONE", child.next());
                // read: the CQ is empty again, its FD falls silent (the counter answers
                // "changed" once to the first tryWait after its increment: fi_poll semantics)
                int tw = node.fabric.tryWait(node.rxCq, node.rxCntr);
                assertEquals(0, tw == -Errno.EAGAIN ? node.fabric.tryWait(node.rxCq, node.rxCntr) : tw);
                assertEquals(0, selector.selectNow(), "FD still readable after everything was read");
            }
        }
    }

    /**
     * MANUAL: records that the progress pass of {@code tryWait} left in the ring (a pass takes
     * at most 256) make it answer {@code -EAGAIN}; no receive is posted, so no queue has
     * anything to read and only the ring check can say so.
     */
    @org.junit.jupiter.api.Test
    void tryWaitAnswersEagainWhileTheRingHoldsRecords() throws Exception {
        try (Node node = new Node(Progress.MANUAL); ChildPeer child = new ChildPeer(dir, "AUTO")) {
            child.expect("peer " + node.name(), "OK");
            child.expect("send 600 8", "DONE");
            assertEquals(-Errno.EAGAIN, node.fabric.tryWait(node.rxCq), "600 records, one pass takes 256");
            int passes = 1;
            int rc;
            while ((rc = node.fabric.tryWait(node.rxCq)) == -Errno.EAGAIN) {
                if (++passes > 100) {
                    fail("tryWait kept answering -EAGAIN");
                }
            }
            assertEquals(0, rc);
            // the 600 messages wait as unexpected: receives posted now take them
            ByteBuffer in = ByteBuffer.allocateDirect(8);
            assertEquals(0, node.ep.recv(in, null, Fi.FI_ADDR_UNSPEC, "late"));
            CqEntry[] one = {new CqEntry()};
            assertEquals(1, node.rxCq.read(one, 1));
            assertEquals("late", one[0].context());
        }
    }

    /** The wait bridge a MANUAL tryWait started ends with its domain (no thread outlives it, R15). */
    @org.junit.jupiter.api.Test
    void theWaitBridgeEndsWithItsDomain() throws Exception {
        Node node = new Node(Progress.MANUAL);
        try {
            assertEquals(0, node.fabric.tryWait(node.rxCq));
            assertFalse(bridgeThreads().isEmpty(), "tryWait in MANUAL arms a wait bridge thread");
        } finally {
            node.close();
        }
        assertEquals(List.of(), bridgeThreads());
    }

    private static List<String> bridgeThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("jofi-shm-fdwait-")).toList();
    }
}
