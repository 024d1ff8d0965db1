package io.jofi.spi.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Errno;
import io.jofi.Progress;
import io.jofi.WaitObj;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A blocking read of an {@code AUTO} engine whose step waits on any thread (a selector, as tcp's)
 * waits in that step on its own thread and moves the data itself, as C's {@code fi_cq_sread}
 * sleeps in {@code epoll_wait}: the pass that finds the data runs on the reader, not on the auto
 * thread that would then have to wake it. The auto thread takes the step back once the reader is
 * gone; a signal and a close reach a reader asleep in the step.
 *
 * <p>The step here is a real selector on a real pipe; each byte written is one "message", whose
 * pass records the thread it ran on and publishes it.
 */
@Timeout(60)
class ProgressEngineReaderWaitTest {

    /** A selector over a pipe's source: each byte read is a message published to {@link #ws}. */
    private final class PipeStep implements ProgressEngine.Step {
        final Selector selector;
        final Pipe pipe;
        final ByteBuffer one = ByteBuffer.allocate(1);

        PipeStep() throws IOException {
            selector = Selector.open();
            pipe = Pipe.open();
            pipe.source().configureBlocking(false);
            pipe.source().register(selector, SelectionKey.OP_READ);
        }

        @Override
        public int progress(long timeoutNanos) {
            try {
                if (timeoutNanos > 0) {
                    selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
                } else {
                    selector.selectNow();
                }
                selector.selectedKeys().clear();
                int n = 0;
                while (one.clear() != null && pipe.source().read(one) == 1) {
                    movedBy.set(Thread.currentThread());
                    messages.incrementAndGet();
                    n++;
                }
                if (n > 0) {
                    ws.notifyReady();
                }
                return n;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void wakeup() {
            selector.wakeup();
        }

        @Override
        public boolean waitsOnAnyThread() {
            return true;
        }

        void send() throws IOException {
            pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
        }

        void close() throws IOException {
            selector.close();
            pipe.sink().close();
            pipe.source().close();
        }
    }

    private final AtomicInteger messages = new AtomicInteger();
    private final AtomicReference<Thread> movedBy = new AtomicReference<>();
    private WaitSupport ws;
    private PipeStep step;
    private ProgressEngine engine;
    /** Messages the reader has taken so far. */
    private final AtomicInteger taken = new AtomicInteger();

    @BeforeEach
    void open() throws Exception {
        ws = WaitSupport.open(WaitObj.UNSPEC, null);
        ws.attach(arg -> messages.get() > taken.get());
        step = new PipeStep();
        engine = ProgressEngine.start(Progress.AUTO, "reader-wait-auto", step);
        ws.addEngine(engine);
    }

    @AfterEach
    void close() throws Exception {
        engine.close();
        ws.close();
        step.close();
    }

    @Test
    void theReaderMovesTheDataItselfAndTheAutoThreadTakesTheStepBack() throws Exception {
        for (int i = 0; i < 50; i++) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch waiting = new CountDownLatch(1);
            Thread reader = new Thread(() -> {
                try {
                    waiting.countDown();
                    assertEquals(0, ws.await(arg -> messages.get() > taken.get(), 0, 10_000));
                    taken.incrementAndGet();
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "reader-" + i);
            reader.start();
            waiting.await();
            awaitReaderInTheStep(reader);
            step.send();
            reader.join(10_000);
            assertFalse(reader.isAlive(), "the reader returned");
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertSame(reader, movedBy.get(), "message " + i + " was moved by the reader's own pass");
        }
        // no reader now: past the lease, the auto thread moves the next message
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(ProgressEngine.READER_LEASE_NANOS) + 5);
        int before = messages.get();
        step.send();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (messages.get() == before && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(before + 1, messages.get(), "the auto thread moved a message nobody waited for");
        assertSame(engine.thread(), movedBy.get());
    }

    /**
     * A hosted layer's readers (rxm's RDM CQ) wait in the step of its one host, however many of the
     * layer's endpoints made the host host it (one use each); with two hosts there is no one step
     * to wait in. (Each use was counted as a host of its own: a second endpoint turned it off.)
     */
    @Test
    void aHostedEnginesReadersWaitInItsOneHostsStep() throws Exception {
        ProgressEngine.Step idle = new ProgressEngine.Step() {
            @Override
            public int progress(long timeoutNanos) {
                return 0;
            }

            @Override
            public void wakeup() {
            }
        };
        ProgressEngine follower = ProgressEngine.hosted("reader-wait-follower", idle, null);
        ProgressEngine other = ProgressEngine.start(Progress.AUTO, "reader-wait-other", idle);
        try {
            assertEquals(null, follower.readerEngine(), "not hosted: no step to wait in");
            engine.host(follower);
            engine.host(follower); // a second endpoint of the layer
            assertSame(engine, follower.readerEngine(), "hosted twice by one engine");
            engine.unhost(follower);
            assertSame(engine, follower.readerEngine(), "one use left");
            other.host(follower);
            assertEquals(null, follower.readerEngine(), "two hosts: no one step");
            other.unhost(follower);
            engine.unhost(follower);
            assertEquals(null, follower.readerEngine(), "no host left");
        } finally {
            other.close();
            follower.close();
        }
    }

    @Test
    void aSignalWakesAReaderAsleepInTheStep() throws Exception {
        AtomicInteger rc = new AtomicInteger(1);
        Thread reader = new Thread(() -> rc.set(ws.await(arg -> messages.get() > taken.get(), 0, 30_000)), "signalled");
        reader.start();
        awaitReaderInTheStep(reader);
        long t0 = System.nanoTime();
        ws.signal();
        reader.join(10_000);
        assertFalse(reader.isAlive());
        assertEquals(-Errno.EAGAIN, rc.get(), "a signalled wait answers EAGAIN");
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "promptly");
    }

    /**
     * R4 with the reader in the step: an interrupt ends its wait with {@code -EAGAIN} and keeps its
     * status, and the channels its pass reads stay open (non-blocking channel operations are not
     * interruptible: an interrupted reader's pass must not close a connection).
     */
    @Test
    void anInterruptEndsTheWaitAndClosesNoChannel() throws Exception {
        AtomicInteger rc = new AtomicInteger(1);
        AtomicReference<Boolean> keptStatus = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            rc.set(ws.await(arg -> messages.get() > taken.get(), 0, -1));
            keptStatus.set(Thread.currentThread().isInterrupted());
        }, "interrupted");
        reader.start();
        awaitReaderInTheStep(reader);
        reader.interrupt();
        step.send(); // the interrupted reader's pass may read it, or the next one
        reader.join(10_000);
        assertFalse(reader.isAlive(), "the interrupted reader returned");
        assertTrue(keptStatus.get(), "the interrupt status is kept (R4)");
        assertTrue(rc.get() == -Errno.EAGAIN || rc.get() == 0, "EAGAIN (R4), or the message it moved: " + rc.get());
        assertTrue(step.pipe.source().isOpen() && step.selector.isOpen(), "no channel closed by the interrupt");
        int before = taken.get();
        assertEquals(0, ws.await(arg -> messages.get() > before, 0, 10_000), "the message arrives all the same");
    }

    @Test
    void closingTheEngineWaitsForTheReadersPass() throws Exception {
        AtomicInteger rc = new AtomicInteger(1);
        Thread reader = new Thread(() -> rc.set(ws.await(arg -> messages.get() > taken.get(), 0, 2_000)), "closed");
        reader.start();
        awaitReaderInTheStep(reader);
        engine.close();
        assertFalse(engine.isRunning());
        // close returned: no pass of the reader's runs now, so the step's resources may go
        step.close();
        reader.join(10_000);
        assertFalse(reader.isAlive(), "the reader returned after the engine closed");
        assertEquals(-Errno.EAGAIN, rc.get());
    }

    /** Until {@code reader} sleeps in the step's selector (its stack shows the select). */
    private static void awaitReaderInTheStep(Thread reader) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            for (StackTraceElement f : reader.getStackTrace()) {
                if (f.getMethodName().equals("readerPass")) {
                    Thread.sleep(2); // into the select itself
                    return;
                }
            }
            Thread.sleep(1);
        }
        throw new AssertionError("the reader never waited in the step: " + java.util.Arrays.toString(reader.getStackTrace()));
    }
}
