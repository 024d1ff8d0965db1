package io.jofi.benchmarks;

import io.jofi.CqEntry;
import io.jofi.EpType;
import io.jofi.FabricException;
import io.jofi.Fi;
import java.nio.ByteBuffer;
import java.util.function.LongUnaryOperator;

/**
 * One data-path benchmark's operation run in a loop for a given time, for
 * {@link StatsCostInOneJvm}: each instance lives in a class loader of its own, where the
 * statistics setting ({@code -Djofi.stats}) was read when that loader first used the counters.
 * It exchanges only JDK types with its caller ({@link LongUnaryOperator}: nanoseconds in,
 * operations done out), so the caller's loader never sees this one's classes.
 */
public final class StatsCostWorkload implements LongUnaryOperator, AutoCloseable {
    /** Operations between two looks at the clock: the clock costs ~20 ns, an operation 0.5–100 µs. */
    private static final int BATCH = 16;

    private final ShmDataPathBenchmark shm;
    private final TcpPair tcp;
    private final int size;
    private final ByteBuffer tx;
    private final ByteBuffer rx;
    private final CqEntry[] entries = {new CqEntry()};
    private final Object context = new Object();

    /**
     * Opens the benchmark's endpoints.
     *
     * @param bench {@code shm} ({@code ShmDataPathBenchmark.sendRecv}), {@code tcp-msg} or
     *              {@code tcp-rdm} (a {@link TcpPair} of that type: b posts a receive, a sends,
     *              b's receive and a's send completion read, as {@code TcpDataPathBenchmark.sendRecv64})
     * @param size  the message size
     */
    public StatsCostWorkload(String bench, int size) throws FabricException {
        this.size = size;
        switch (bench) {
            case "shm":
                shm = new ShmDataPathBenchmark();
                shm.size = size;
                shm.senderInAv = true;
                shm.setUp();
                tcp = null;
                tx = null;
                rx = null;
                break;
            case "tcp-msg":
            case "tcp-rdm":
                tcp = new TcpPair(bench.equals("tcp-msg") ? EpType.MSG : EpType.RDM);
                tx = ByteBuffer.allocateDirect(size);
                rx = ByteBuffer.allocateDirect(size);
                shm = null;
                break;
            default:
                throw new IllegalArgumentException("unknown workload " + bench + " (shm, tcp-msg, tcp-rdm)");
        }
    }

    /** Runs operations for {@code nanos} (in batches of {@value #BATCH}); returns how many ran. */
    @Override
    public long applyAsLong(long nanos) {
        long deadline = System.nanoTime() + nanos;
        long ops = 0;
        do {
            if (shm != null) {
                for (int i = 0; i < BATCH; i++) {
                    shm.sendRecv();
                }
            } else {
                for (int i = 0; i < BATCH; i++) {
                    tcpSendRecv();
                }
            }
            ops += BATCH;
        } while (System.nanoTime() < deadline);
        return ops;
    }

    private void tcpSendRecv() {
        TcpPair p = tcp;
        TcpPair.check(p.b.recv(rx, null, Fi.FI_ADDR_UNSPEC, context), "recv");
        TcpPair.check(p.a.send(tx, null, p.bFromA, context), "send");
        p.await(p.bRx, entries);
        if (entries[0].len() != size || (entries[0].flags() & Fi.FI_RECV) == 0) {
            throw new IllegalStateException("receive completion with len " + entries[0].len() + ", expected " + size);
        }
        p.await(p.aTx, entries);
        if ((entries[0].flags() & Fi.FI_SEND) == 0) {
            throw new IllegalStateException("transmit completion without FI_SEND");
        }
    }

    @Override
    public void close() throws FabricException {
        if (shm != null) {
            shm.tearDown();
        } else {
            tcp.close();
        }
    }
}
