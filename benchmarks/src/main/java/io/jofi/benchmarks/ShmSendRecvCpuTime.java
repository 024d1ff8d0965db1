package io.jofi.benchmarks;

import io.jofi.Fi;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Times {@link ShmDataPathBenchmark#sendRecv}'s loop in the thread's CPU time, which other processes' load does
 * not add to: CPU nanoseconds and allocated bytes per message, the median of several rounds.
 *
 * <p>One message = a receive posted at B, {@code send} from A, both completions read ({@link ShmPair}, manual
 * progress, one thread). Run: {@code java -cp benchmarks/target/benchmarks.jar
 * io.jofi.benchmarks.ShmSendRecvCpuTime <size> [warm-up messages] [messages a round] [rounds]}; prints one line:
 * {@code size=64 cpuNsPerMsg=[r1, r2, ...] median=M bytesPerMsg=B}.
 */
public final class ShmSendRecvCpuTime {
    private ShmSendRecvCpuTime() {
    }

    public static void main(String[] args) throws Exception {
        int size = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        int warmUp = args.length > 1 ? Integer.parseInt(args[1]) : 300_000;
        int perRound = args.length > 2 ? Integer.parseInt(args[2]) : 100_000;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.ThreadMXBean allocation = (com.sun.management.ThreadMXBean) threads;
        long self = Thread.currentThread().getId();
        try (ShmPair pair = new ShmPair(64, true)) {
            ByteBuffer tx = ByteBuffer.allocateDirect(size);
            ByteBuffer rx = ByteBuffer.allocateDirect(size);
            Object context = new Object();
            loop(pair, tx, rx, context, warmUp);
            double[] nanos = new double[rounds];
            long bytesBefore = allocation.getThreadAllocatedBytes(self);
            for (int r = 0; r < rounds; r++) {
                long start = threads.getCurrentThreadCpuTime();
                loop(pair, tx, rx, context, perRound);
                nanos[r] = (threads.getCurrentThreadCpuTime() - start) / (double) perRound;
            }
            double bytes = (allocation.getThreadAllocatedBytes(self) - bytesBefore) / ((double) perRound * rounds);
            double[] sorted = nanos.clone();
            Arrays.sort(sorted);
            StringBuilder line = new StringBuilder("size=").append(size).append(" cpuNsPerMsg=[");
            for (int r = 0; r < rounds; r++) {
                line.append(r == 0 ? "" : ", ").append(Math.round(nanos[r]));
            }
            line.append("] median=").append(Math.round(sorted[rounds / 2]))
                    .append(String.format(" bytesPerMsg=%.2f", bytes));
            System.out.println(line);
        }
    }

    private static void loop(ShmPair p, ByteBuffer tx, ByteBuffer rx, Object context, int messages) {
        for (int i = 0; i < messages; i++) {
            ShmPair.check(p.b.ep.recv(rx, null, Fi.FI_ADDR_UNSPEC, context), "recv");
            int rc;
            while ((rc = p.a.ep.send(tx, null, p.toB, context)) != 0) {
                p.retry(rc, "send");
            }
            p.reap(p.b.rxCq, p.a.txCq, 1);
            p.reap(p.a.txCq, p.b.rxCq, 1);
        }
    }
}
