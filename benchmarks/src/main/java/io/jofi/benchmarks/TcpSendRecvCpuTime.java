package io.jofi.benchmarks;

import io.jofi.CqEntry;
import io.jofi.EpType;
import io.jofi.Fi;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Times one tcp message's whole path in the thread's CPU time, which other processes' load does not add to: CPU
 * nanoseconds (all, and user mode only: the Java path without the kernel's socket work) and allocated bytes per
 * message, each round's figure and the rounds' median and best.
 *
 * <p>One message = a receive posted at b, {@code send} from a, b's receive completion and a's send completion
 * read ({@link TcpPair}: MSG over 127.0.0.1, or RDM, manual progress, one thread, so every CQ read is a progress
 * pass over both sockets) — {@link TcpDataPathBenchmark}'s {@code sendRecv} loop without JMH. The thread's CPU
 * time includes the kernel's loopback work done in its system calls; the other side's wake-ups do not exist here
 * (one thread drives both ends). Run: {@code java -cp benchmarks/target/benchmarks.jar
 * io.jofi.benchmarks.TcpSendRecvCpuTime <MSG|RDM> <size> [warm-up messages] [messages a round] [rounds]};
 * prints one line: {@code type=MSG size=4096 cpuNsPerMsg=[r1, ...] median=M best=B userNsPerMsg=[...] median=M
 * best=B bytesPerMsg=A}. User time has the scheduler tick's granularity per round (a round of 20 000 messages
 * spends hundreds of ms, so a tick is well under 1 %).
 */
public final class TcpSendRecvCpuTime {
    private TcpSendRecvCpuTime() {
    }

    public static void main(String[] args) throws Exception {
        EpType type = EpType.valueOf(args.length > 0 ? args[0] : "MSG");
        int size = args.length > 1 ? Integer.parseInt(args[1]) : 4096;
        int warmUp = args.length > 2 ? Integer.parseInt(args[2]) : 100_000;
        int perRound = args.length > 3 ? Integer.parseInt(args[3]) : 50_000;
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 5;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.ThreadMXBean allocation = (com.sun.management.ThreadMXBean) threads;
        long self = Thread.currentThread().getId();
        try (TcpPair pair = new TcpPair(type)) {
            ByteBuffer tx = ByteBuffer.allocateDirect(size);
            ByteBuffer rx = ByteBuffer.allocateDirect(size);
            CqEntry[] entries = {new CqEntry()};
            Object sendContext = new Object();
            Object recvContext = new Object();
            loop(pair, tx, rx, entries, sendContext, recvContext, warmUp);
            double[] nanos = new double[rounds];
            double[] userNanos = new double[rounds];
            long bytesBefore = allocation.getThreadAllocatedBytes(self);
            for (int r = 0; r < rounds; r++) {
                long start = threads.getCurrentThreadCpuTime();
                long userStart = threads.getCurrentThreadUserTime();
                loop(pair, tx, rx, entries, sendContext, recvContext, perRound);
                userNanos[r] = (threads.getCurrentThreadUserTime() - userStart) / (double) perRound;
                nanos[r] = (threads.getCurrentThreadCpuTime() - start) / (double) perRound;
            }
            double bytes = (allocation.getThreadAllocatedBytes(self) - bytesBefore) / ((double) perRound * rounds);
            StringBuilder line = new StringBuilder("type=").append(type).append(" size=").append(size);
            append(line, " cpuNsPerMsg", nanos);
            append(line, " userNsPerMsg", userNanos);
            System.out.println(line.append(String.format(" bytesPerMsg=%.2f", bytes)));
        }
    }

    /** {@code name=[r1, r2, ...] median=M best=B}: each round's figure, then the rounds' median and lowest. */
    private static void append(StringBuilder line, String name, double[] perRound) {
        double[] sorted = perRound.clone();
        Arrays.sort(sorted);
        line.append(name).append("=[");
        for (int r = 0; r < perRound.length; r++) {
            line.append(r == 0 ? "" : ", ").append(Math.round(perRound[r]));
        }
        line.append("] median=").append(Math.round(sorted[perRound.length / 2])).append(" best=")
                .append(Math.round(sorted[0]));
    }

    private static void loop(TcpPair p, ByteBuffer tx, ByteBuffer rx, CqEntry[] entries, Object sendContext,
            Object recvContext, int messages) {
        int size = tx.remaining();
        for (int i = 0; i < messages; i++) {
            TcpPair.check(p.b.recv(rx, null, Fi.FI_ADDR_UNSPEC, recvContext), "recv");
            TcpPair.check(p.a.send(tx, null, p.bFromA, sendContext), "send");
            p.await(p.bRx, entries);
            if (entries[0].len() != size) {
                throw new IllegalStateException("received " + entries[0].len() + " bytes, sent " + size);
            }
            p.await(p.aTx, entries);
        }
    }
}
