package io.jofi.benchmarks;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.EpType;
import io.jofi.FabricException;
import io.jofi.Fi;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The tcp provider's data path, end to end over loopback on one thread with manual progress
 * ({@link TcpPair}: a connected MSG pair or an RDM pair, set up once per trial). One operation
 * = one invocation; its time includes every progress pass (a {@code Selector.selectNow()} per
 * CQ read) and the kernel's loopback. Run with {@code -prof gc}: {@code gc.alloc.rate.norm}
 * must be ≈ 0 B/op, the "nothing allocated per operation in steady state".
 * <ul>
 * <li>{@link #injectRecv64}: b posts a 64 B receive, a injects 64 B (no transmit completion,
 *     fi_msg(3) {@code fi_inject}), b reads the receive completion — a one-way hand-off.</li>
 * <li>{@link #sendRecv64} / {@link #sendRecv4k}: b posts a receive, a sends with a completion;
 *     b's receive completion and a's send completion are both read.</li>
 * <li>{@link #taggedRoundTrip64}: both post a tagged receive, a → b, then b answers → a
 *     (fi_tagged(3)); four completions read.</li>
 * <li>{@link #rmaWrite64}: a writes 64 B into b's registered region and reads the write's
 *     completion, which the tcp provider gives when b's ack arrives (stronger than transmit
 *     complete, provider-tcp/README "RMA").</li>
 * </ul>
 * Every post's return code is checked, receive completions must carry the sent length, and
 * completions go to the {@link Blackhole}. Every wait is bounded ({@link TcpPair#TIMEOUT_NS}):
 * if the peer is gone the invocation throws and JMH fails the benchmark instead of spinning.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar TcpDataPath -prof gc -f 1 -wi 3 -i 5}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TcpDataPathBenchmark {
    private static final int SMALL = 64;
    private static final int LARGE = 4096;
    private static final long TAG_AB = 0x1001;
    private static final long TAG_BA = 0x2002;

    /** Endpoint type of the pair: {@code MSG} (connected) or {@code RDM} (AV-addressed). */
    @Param({"MSG", "RDM"})
    public String type;

    private TcpPair pair;
    /** Direct buffers, made once: the provider caches its views per buffer, so reposting allocates nothing. */
    private ByteBuffer tx64;
    private ByteBuffer rx64;
    private ByteBuffer tx4k;
    private ByteBuffer rx4k;
    private final CqEntry[] entries = {new CqEntry()};
    /** Contexts: real objects made before the timed loop, as an application's would be. */
    private final Object sendCtx = new Object();
    private final Object recvCtx = new Object();

    /** Opens and connects the pair (RDM: including the first-use connection) outside the timed region. */
    @Setup(Level.Trial)
    public void open() throws FabricException {
        pair = new TcpPair(EpType.valueOf(type));
        tx64 = ByteBuffer.allocateDirect(SMALL);
        rx64 = ByteBuffer.allocateDirect(SMALL);
        tx4k = ByteBuffer.allocateDirect(LARGE);
        rx4k = ByteBuffer.allocateDirect(LARGE);
    }

    /** Closes every object of the pair (endpoints first). */
    @TearDown(Level.Trial)
    public void close() throws FabricException {
        if (pair != null) {
            pair.close();
            pair = null;
        }
    }

    /** 64 B inject a → b, receive completion read at b: the one-way hand-off. */
    @Benchmark
    public void injectRecv64(Blackhole bh) {
        TcpPair p = pair;
        TcpPair.check(p.b.recv(rx64, null, Fi.FI_ADDR_UNSPEC, recvCtx), "recv");
        TcpPair.check(p.a.inject(tx64, p.bFromA), "inject");
        awaitReceive(p.bRx, SMALL, bh);
    }

    /** 64 B send with completion a → b; b's receive and a's send completion read. */
    @Benchmark
    public void sendRecv64(Blackhole bh) {
        sendRecv(tx64, rx64, SMALL, bh);
    }

    /** As {@link #sendRecv64} with 4 KiB. */
    @Benchmark
    public void sendRecv4k(Blackhole bh) {
        sendRecv(tx4k, rx4k, LARGE, bh);
    }

    private void sendRecv(ByteBuffer tx, ByteBuffer rx, int size, Blackhole bh) {
        TcpPair p = pair;
        TcpPair.check(p.b.recv(rx, null, Fi.FI_ADDR_UNSPEC, recvCtx), "recv");
        TcpPair.check(p.a.send(tx, null, p.bFromA, sendCtx), "send");
        awaitReceive(p.bRx, size, bh);
        awaitSend(p.aTx, Fi.FI_SEND, bh);
    }

    /** 64 B tagged a → b, then b → a once b has it; both receives and both sends completed. */
    @Benchmark
    public void taggedRoundTrip64(Blackhole bh) {
        TcpPair p = pair;
        TcpPair.check(p.b.trecv(rx64, null, Fi.FI_ADDR_UNSPEC, TAG_AB, 0, recvCtx), "trecv");
        TcpPair.check(p.a.trecv(rx64, null, Fi.FI_ADDR_UNSPEC, TAG_BA, 0, recvCtx), "trecv");
        TcpPair.check(p.a.tsend(tx64, null, p.bFromA, TAG_AB, sendCtx), "tsend");
        awaitReceive(p.bRx, SMALL, bh);
        TcpPair.check(p.b.tsend(tx64, null, p.aFromB, TAG_BA, sendCtx), "tsend");
        awaitReceive(p.aRx, SMALL, bh);
        awaitSend(p.aTx, Fi.FI_SEND, bh);
        awaitSend(p.bTx, Fi.FI_SEND, bh);
    }

    /** 64 B RMA write a → b's region; a's write completion read (it waits for b's ack). */
    @Benchmark
    public void rmaWrite64(Blackhole bh) {
        TcpPair p = pair;
        TcpPair.check(p.a.write(tx64, null, p.bFromA, p.region.address(), p.region.key(), sendCtx), "write");
        awaitSend(p.aTx, Fi.FI_WRITE, bh);
    }

    private void awaitReceive(CompletionQueue cq, int size, Blackhole bh) {
        pair.await(cq, entries);
        CqEntry e = entries[0];
        if (e.len() != size || (e.flags() & Fi.FI_RECV) == 0) {
            throw new IllegalStateException("receive completion with len " + e.len() + ", flags 0x"
                    + Long.toHexString(e.flags()) + ", expected len " + size + " and FI_RECV");
        }
        bh.consume(e.context());
        bh.consume(e.flags());
    }

    private void awaitSend(CompletionQueue cq, long flag, Blackhole bh) {
        pair.await(cq, entries);
        CqEntry e = entries[0];
        if ((e.flags() & flag) == 0) {
            throw new IllegalStateException("transmit completion with flags 0x" + Long.toHexString(e.flags())
                    + ", expected 0x" + Long.toHexString(flag));
        }
        bh.consume(e.context());
        bh.consume(e.flags());
    }
}
