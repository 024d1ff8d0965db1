package io.jofi.provider.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jofi.CompletionQueue;
import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Progress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A hostile process that speaks as a real peer (docs/SHM-LAYOUT.md "Bad input, faults,
 * security"): it writes well-formed ring records into a victim endpoint's ring under the name
 * (pid and sequence) of an endpoint the victim already talks to, every kind of the endpoint
 * protocol — messages (compact, fragmented, bounce, CMA), acknowledgements, RMA writes and
 * read requests, atomics, notifications, probes — with random flags, tokens, lengths,
 * offsets, bounce slots, and keys and addresses that name the victim's registered memory or
 * nothing. {@link ShmHostilePeerTest}'s senders are unknown, so its records stop at the
 * sender's check; these reach the protocol's. Nothing may throw out of the victim's progress
 * (AUTO: it would kill the thread) or stop it serving: afterwards a new peer's message still
 * arrives and the victim's answer reaches that peer. Seeds 1..N
 * ({@code -Djofi.shm.fuzz.seeds=N}, default 10; {@code -Djofi.shm.fuzz.first=F}).
 */
@Timeout(120)
class ShmHostileSenderTest {
    private static final int RECORDS = 3000;
    /**
     * The endpoints the hostile writer speaks as (MANUAL progress: files and names, no thread).
     * The victim fails each at its first detected violation and drops its later records, so
     * there are many, and most records are well-formed.
     */
    private static final int FRIENDS = 24;
    /** Answers (ACK, READ_RESP, ATOMIC_RESP) name the victim's operations: rare, as one with a made-up token fails its sender. */
    private static final int[] KINDS = {ShmRecordDescriptor.MSG, ShmRecordDescriptor.MSG, ShmRecordDescriptor.MSG,
        ShmRecordDescriptor.MSG, ShmRecordDescriptor.WRITE, ShmRecordDescriptor.WRITE, ShmRecordDescriptor.READ_REQ,
        ShmRecordDescriptor.ATOMIC_REQ, ShmRecordDescriptor.ATOMIC_REQ, ShmRecordDescriptor.NOTIFY,
        ShmRecordDescriptor.PROBE};
    private static final int[] ANSWERS = {ShmRecordDescriptor.ACK, ShmRecordDescriptor.READ_RESP,
        ShmRecordDescriptor.ATOMIC_RESP};
    private static final int[] FLAGS = {ShmRecordDescriptor.FIRST, ShmRecordDescriptor.LAST, ShmRecordDescriptor.TAGGED,
        ShmRecordDescriptor.HAS_DATA, ShmRecordDescriptor.ACK_ARRIVAL, ShmRecordDescriptor.ACK_MATCH,
        ShmRecordDescriptor.COMMIT, ShmRecordDescriptor.REMOTE_WRITE, ShmRecordDescriptor.REMOTE_READ,
        ShmRecordDescriptor.FETCH, ShmRecordDescriptor.BOUNCE, ShmRecordDescriptor.CMA, ShmRecordDescriptor.COMPACT};

    static LongStream seeds() {
        long first = Long.getLong("jofi.shm.fuzz.first", 1);
        return LongStream.range(first, first + Long.getLong("jofi.shm.fuzz.seeds", 10));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void recordsUnderAPeersNameDoNotBreakTheEndpoint(long seed) throws Exception {
        Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "shmsender-");
        SplittableRandom r = new SplittableRandom(seed);
        ShmTestBed[] friends = new ShmTestBed[FRIENDS];
        try (ShmTestBed victim = new ShmTestBed(dir, Progress.AUTO);
             MemoryRegion mr = victim.domain.register(ByteBuffer.allocateDirect(1 << 16), Fi.FI_REMOTE_READ
                     | Fi.FI_REMOTE_WRITE, 0, 0, 0, null)) {
            long[] pids = new long[FRIENDS];
            long[] seqs = new long[FRIENDS];
            for (int f = 0; f < FRIENDS; f++) {
                friends[f] = new ShmTestBed(dir, Progress.MANUAL);
                String[] id = friends[f].name().substring(ShmNames.SCHEME.length()).split("-");
                pids[f] = Long.parseLong(id[0]);
                seqs[f] = Long.parseLong(id[1]) << 32 | Long.parseLong(id[2]);
            }
            // the first friend and the victim know each other: a message each way
            exchange(friends[0], friends[0].insert(victim.ep.getName()), victim, victim.insert(friends[0].ep.getName()), 1);
            for (int i = 0; i < 8; i++) {
                victim.post(() -> victim.ep.recv(ByteBuffer.allocateDirect(256), null, Fi.FI_ADDR_UNSPEC, "any"), "recv");
            }
            try (RingLink hostile = RingLink.map(dir, victim.name().substring(ShmNames.SCHEME.length()))) {
                for (int i = 0; i < RECORDS; i++) {
                    int f = r.nextInt(FRIENDS);
                    int payload = r.nextInt(4) == 0 ? 0 : r.nextInt(256) & ~7;
                    int n = ShmRecordDescriptor.HEADER + payload;
                    int at = ShmTestBed.claimInto(hostile, n, i);
                    write(hostile.buffer(), at, payload, r, pids[f], seqs[f], mr);
                    hostile.publish(at);
                }
            }
            // a new peer is served: its message arrives, the victim's answer reaches it
            try (ShmTestBed late = new ShmTestBed(dir, Progress.AUTO)) {
                long toLate = victim.insert(late.ep.getName());
                long lateToVictim = late.insert(victim.ep.getName());
                exchange(late, lateToVictim, victim, toLate, 3);
            }
        } finally {
            for (ShmTestBed f : friends) {
                if (f != null) {
                    f.close();
                }
            }
            ShmCrossProcessTest.deleteTree(dir);
        }
    }

    /**
     * One record of {@code payload} bytes: a well-formed one of a random kind (a whole message,
     * an RMA write or read request or atomic on the victim's registered memory, a notification,
     * a probe; rarely an answer) so that it passes the first checks, and in one record of six
     * one word (or flag) replaced by a random one, so that the checks behind are reached too.
     */
    private static void write(ByteBuffer b, int at, int payload, SplittableRandom r, long pid, long seq,
                              MemoryRegion mr) {
        int kind = r.nextInt(40) == 0 ? ANSWERS[r.nextInt(ANSWERS.length)] : KINDS[r.nextInt(KINDS.length)];
        int mutated = r.nextInt(6) == 0 ? r.nextInt(9) : -1; // at most one word replaced, in one record of six
        int flags = ShmRecordDescriptor.FIRST | ShmRecordDescriptor.LAST;
        switch (kind) {
            case ShmRecordDescriptor.MSG -> flags |= (r.nextBoolean() ? ShmRecordDescriptor.TAGGED : 0)
                    | (r.nextInt(4) == 0 ? ShmRecordDescriptor.HAS_DATA : 0)
                    | (r.nextInt(6) == 0 ? ShmRecordDescriptor.ACK_ARRIVAL : 0)
                    | (r.nextInt(6) == 0 ? ShmRecordDescriptor.ACK_MATCH : 0);
            case ShmRecordDescriptor.WRITE -> flags |= (r.nextInt(4) == 0 ? ShmRecordDescriptor.HAS_DATA : 0)
                    | (r.nextInt(4) == 0 ? ShmRecordDescriptor.ACK_ARRIVAL : 0);
            case ShmRecordDescriptor.ATOMIC_REQ -> flags |= r.nextBoolean() ? ShmRecordDescriptor.FETCH : 0;
            default -> { }
        }
        if (mutated == 0) {
            flags ^= FLAGS[r.nextInt(FLAGS.length)];
        }
        boolean rma = kind == ShmRecordDescriptor.WRITE || kind == ShmRecordDescriptor.READ_REQ
                || kind == ShmRecordDescriptor.ATOMIC_REQ;
        b.putInt(at + ShmRecordDescriptor.KIND_FLAGS, mutate(mutated == 1, kind | flags, r.nextInt()));
        b.putInt(at + ShmRecordDescriptor.STATUS, mutate(mutated == 2, 0, r.nextInt()));
        b.putLong(at + ShmRecordDescriptor.SENDER_PID, pid);
        b.putLong(at + ShmRecordDescriptor.SENDER_SEQ, seq);
        b.putLong(at + ShmRecordDescriptor.TOKEN, mutate(mutated == 3, (long) r.nextInt(1 << 12), r.nextLong()));
        b.putLong(at + ShmRecordDescriptor.A, mutate(mutated == 4, rma ? mr.key() : r.nextLong(), r.nextLong()));
        b.putLong(at + ShmRecordDescriptor.B, mutate(mutated == 5, rma ? mr.address() + (r.nextInt(1 << 13) & ~7) : r.nextLong(),
                r.nextBoolean() ? r.nextLong() : mr.address() + (1 << 16) - r.nextInt(64)));
        long total = kind == ShmRecordDescriptor.READ_REQ ? r.nextInt(1 << 12) : kind == ShmRecordDescriptor.ATOMIC_REQ
                ? r.nextInt(1 << 20) : payload;
        b.putLong(at + ShmRecordDescriptor.C, mutate(mutated == 6, total, r.nextBoolean() ? r.nextLong() : r.nextInt(1 << 20)));
        b.putLong(at + ShmRecordDescriptor.D, mutate(mutated == 7, 0L, r.nextBoolean() ? r.nextLong() : r.nextInt(1 << 12)));
        b.putLong(at + ShmRecordDescriptor.E, mutate(mutated == 8, (long) r.nextInt(16), r.nextLong()));
        for (int k = 0; k < payload; k += 8) {
            b.putLong(at + ShmRecordDescriptor.HEADER + k, r.nextLong());
        }
    }

    /**
     * The next completion of {@code cq} that is not the hostile records' doing: their messages
     * took the receives posted for any source ("any": completed, or failed with the sender the
     * victim then declared failed), their remote writes with CQ data came without a context.
     */
    private static CqEntry ours(CompletionQueue cq, String what) {
        CqEntry[] one = {new CqEntry()};
        CqErrEntry err = new CqErrEntry();
        long deadline = System.nanoTime() + ShmTestBed.WAIT_NANOS;
        while (System.nanoTime() < deadline) {
            int rc = cq.read(one, 1);
            if (rc == 1 && one[0].context() != null && !"any".equals(one[0].context())) {
                return one[0];
            }
            if (rc == -Errno.EAVAIL) {
                assertEquals(1, cq.readErr(err, 0));
                assertEquals("any", err.context(), () -> what + ": error completion " + err);
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion for " + what + " within 20 s");
    }

    private static int mutate(boolean replace, int value, int other) {
        return replace ? other : value;
    }

    private static long mutate(boolean replace, long value, long other) {
        return replace ? other : value;
    }

    /**
     * {@code a} sends to {@code b} and {@code b} answers, tagged with a tag of their own: the
     * random records may have left unexpected messages, or a message of the impersonated peer
     * begun and never finished, that an untagged receive would take (the latter until the
     * peer's progress timeout).
     */
    private static void exchange(ShmTestBed a, long aToB, ShmTestBed b, long bToA, int seed) {
        long tag = 0x5AFE_0000_0000_0000L | seed;
        ByteBuffer in = ByteBuffer.allocateDirect(64);
        b.post(() -> b.ep.trecv(in, null, Fi.FI_ADDR_UNSPEC, tag, 0, "mine"), "recv");
        a.post(() -> a.ep.tsend(ShmCrossProcessTest.pattern(64, seed), null, aToB, tag, "to b"), "send");
        assertEquals("mine", ours(b.rxCq, "the message after the hostile records").context());
        assertEquals((byte) seed, in.get(0));
        assertEquals((byte) (seed + 63), in.get(63));
        assertEquals("to b", a.completion(a.txCq, "the send").context());
        ByteBuffer back = ByteBuffer.allocateDirect(64);
        a.post(() -> a.ep.trecv(back, null, Fi.FI_ADDR_UNSPEC, tag, 0, "back"), "recv");
        b.post(() -> b.ep.tsend(ShmCrossProcessTest.pattern(64, seed + 1), null, bToA, tag, "to a"), "send back");
        assertEquals("back", a.completion(a.rxCq, "the answer").context());
        assertEquals((byte) (seed + 1), back.get(0));
        assertEquals("to a", b.completion(b.txCq, "the answer's send").context());
    }
}
