package io.jofi.provider.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import io.jofi.Progress;
import io.jofi.provider.tcp.interop.NativeProgram;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Atomics between a JOFI tcp RDM endpoint (the rxm layer) and libfabric 1.17's own
 * {@code tcp;ofi_rxm} ({@code src/test/c/rxm_atomic_peer.c}), both ways: rxm's atomic request
 * and response packets, executed in software by the target — JOFI's atomics into the C
 * process's registered words, and the C process's into JOFI's. Skipped without libfabric-dev.
 */
@Timeout(60)
class RxmAtomicInteropTest {
    private static final long WAIT_MS = 10_000;

    /** The C peer: its name, the key and address of its eight registered words, and its command lines. */
    private static final class CPeer implements AutoCloseable {
        final Process process;
        final PrintStream in;
        final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final byte[] name;
        final long key;
        final long addr;

        CPeer() throws IOException {
            process = new ProcessBuilder(NativeProgram.require("rxm_atomic_peer").toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String l;
                    while ((l = r.readLine()) != null) {
                        lines.add(l);
                    }
                } catch (IOException e) {
                    lines.add("EOF " + e);
                }
            }, "rxm_atomic_peer-output");
            reader.setDaemon(true);
            reader.start();
            String[] ready = next().split(" ");
            assertEquals("ready", ready[0], String.join(" ", ready));
            name = HexFormat.of().parseHex(ready[1]);
            key = Long.parseUnsignedLong(ready[2]);
            addr = Long.parseUnsignedLong(ready[3]);
        }

        String next() {
            try {
                String l = lines.poll(WAIT_MS, TimeUnit.MILLISECONDS);
                if (l == null) {
                    fail("no answer from rxm_atomic_peer within " + WAIT_MS + " ms");
                }
                return l;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        String ask(String command) {
            in.println(command);
            return next();
        }

        long word(int i) {
            String v = ask("get " + i);
            assertTrue(v.startsWith("VALUE "), v);
            return Long.parseLong(v.substring(6));
        }

        @Override
        public void close() throws InterruptedException {
            in.println("quit");
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    @Test
    void jofiAtomicsIntoACProcessAndBack() throws Exception {
        try (CPeer c = new CPeer();
             RdmTestBed bed = new RdmTestBed(Progress.AUTO, Fi.FI_MSG | Fi.FI_ATOMIC | Fi.FI_RMA)) {
            RdmTestBed.Node me = bed.node("jofi");
            long cAddr = insert(me, c.name);
            assertEquals("OK", c.ask("peer " + HexFormat.of().formatHex(me.name)));
            ByteBuffer result = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());

            // JOFI → C: every form, into word 0 and word 3 of the C process's region
            check(me.ep.atomic(5, cAddr, c.addr, c.key, Fi.FI_SUM, "sum"));
            awaitTx(me, "sum");
            check(me.ep.fetchAtomic(7, result, null, cAddr, c.addr, c.key, Fi.FI_SUM, "fetch"));
            awaitTx(me, "fetch");
            assertEquals(5, result.getLong(0), "the old value C held");
            check(me.ep.compareAtomic(12, 100, result, null, cAddr, c.addr, c.key, "cswap"));
            awaitTx(me, "cswap");
            assertEquals(12, result.getLong(0));
            check(me.ep.fetchAtomic(0, result, null, cAddr, c.addr + 24, c.key, Fi.FI_ATOMIC_READ, "read"));
            awaitTx(me, "read");
            assertEquals(0, result.getLong(0));
            check(me.ep.atomic(-9, cAddr, c.addr + 24, c.key, Fi.FI_MIN, "min"));
            awaitTx(me, "min");
            assertEquals(100, c.word(0), "C's word 0 after sum 5, sum 7, cswap 12 -> 100");
            assertEquals(-9, c.word(3), "C's word 3 after min(0, -9)");
            // JOFI → C typed: rxm's request with datatype and count, served by C's ofi_rxm
            ByteBuffer three = ByteBuffer.allocateDirect(3).put(0, (byte) -1).put(1, (byte) 2).put(2, (byte) 127);
            check(me.ep.atomic(three, 3, null, cAddr, c.addr + 40, c.key, Fi.FI_INT8, Fi.FI_SUM, "int8 sum"));
            awaitTx(me, "int8 sum");
            assertEquals(0x7f02ffL, c.word(5), "C's word 5: bytes ff 02 7f");
            ByteBuffer old3 = ByteBuffer.allocateDirect(3);
            three.put(0, (byte) 1).put(1, (byte) 0).put(2, (byte) 1);
            check(me.ep.fetchAtomic(three, 3, null, old3, null, cAddr, c.addr + 40, c.key, Fi.FI_INT8, Fi.FI_SUM,
                    "int8 fetch sum"));
            awaitTx(me, "int8 fetch sum");
            assertEquals(-1, old3.get(0));
            assertEquals(127, old3.get(2));
            assertEquals(0x800200L, c.word(5), "C's word 5: ff + 1 and 7f + 1 wrap");
            ByteBuffer swap = ByteBuffer.allocateDirect(4).order(ByteOrder.nativeOrder()).putInt(0, 77);
            ByteBuffer cmp = ByteBuffer.allocateDirect(4).order(ByteOrder.nativeOrder()).putInt(0, 5);
            ByteBuffer old4 = ByteBuffer.allocateDirect(4).order(ByteOrder.nativeOrder()).putInt(0, -1);
            check(me.ep.compareAtomic(swap, 1, null, cmp, null, old4, null, cAddr, c.addr + 48, c.key, Fi.FI_UINT32,
                    Fi.FI_CSWAP_GT, "uint32 cswap_gt"));
            awaitTx(me, "uint32 cswap_gt");
            assertEquals(0, old4.getInt(0));
            assertEquals(77, c.word(6), "C's word 6: 5 > 0, so 77 went in");
            // a key C never registered: an error completion, nothing changed
            check(me.ep.atomic(1, cAddr, c.addr, c.key + 1, Fi.FI_SUM, "badkey"));
            CqErrEntry err = awaitTxError(me);
            assertEquals("badkey", err.context());
            assertEquals(Errno.EACCES, err.err(), "C's rxm answers a failed key check with -FI_EACCES");
            assertEquals(100, c.word(0));

            // C → JOFI: C's rxm atomics into a JOFI region (served by this side's rxm layer)
            ByteBuffer words = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
            try (MemoryRegion mr = bed.domain.register(words, Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE, 0, 0x77, 0, null)) {
                String at = Long.toUnsignedString(mr.address()) + " " + Long.toUnsignedString(mr.key());
                String at8 = Long.toUnsignedString(mr.address() + 8) + " " + Long.toUnsignedString(mr.key());
                assertEquals("OK", c.ask("atomic " + Fi.FI_SUM + " 40 " + at));
                assertEquals("OLD 40", c.ask("fetch " + Fi.FI_SUM + " 2 " + at));
                assertEquals("OLD 42", c.ask("cswap 42 7 " + at));
                assertEquals("OLD 0", c.ask("fetch " + Fi.FI_BOR + " 6 " + at8));
                assertEquals("OLD 6", c.ask("fetch " + Fi.FI_ATOMIC_READ + " 0 " + at8));
                assertEquals("OK", c.ask("atomic " + Fi.FI_ATOMIC_WRITE + " -3 " + at8));
                assertEquals(7, words.getLong(0), "JOFI's word 0 after C's sum 40, sum 2, cswap 42 -> 7");
                assertEquals(-3, words.getLong(8), "JOFI's word 1 after C's bor 6, write -3");
                assertEquals("OK", c.ask("atomic " + Fi.FI_PROD + " 3 " + at));
                assertEquals(21, words.getLong(0), "FI_PROD of FI_INT64, served by JOFI's target since AtomicTable");
                typedFromC(c, words, mr);
                // a word outside the region: C's atomic fails with JOFI's -FI_EACCES
                String outside = Long.toUnsignedString(mr.address() + 64) + " " + Long.toUnsignedString(mr.key());
                assertEquals("E " + Errno.EACCES, c.ask("atomic " + Fi.FI_SUM + " 1 " + outside));
                assertEquals(21, words.getLong(0));
            }
        }
    }

    /**
     * C's typed atomics (rxm's packets carry datatype and count) into JOFI's region, served by
     * JOFI's rxm target with the util layer's table: each result as fi_atomic(3) defines it.
     */
    private static void typedFromC(CPeer c, ByteBuffer words, MemoryRegion mr) {
        String key = " " + Long.toUnsignedString(mr.key());
        // FI_INT8 FI_SUM of 3 elements at byte 16: 127 + 1 wraps to -128
        words.put(16, (byte) 127).put(17, (byte) -1).put(18, (byte) 5).put(19, (byte) 0x5a);
        assertEquals("OLD 7fff05", c.ask("typed f " + Fi.FI_INT8 + " " + Fi.FI_SUM + " 3 0101f6 - " + at(mr, 16) + key));
        assertEquals(-128, words.get(16));
        assertEquals(0, words.get(17));
        assertEquals(-5, words.get(18));
        assertEquals(0x5a, words.get(19), "the byte after the three elements");
        // FI_UINT32 FI_MAX of 2 elements at 24: 0xffffffff is the largest; 1 < 0x80000000
        words.putInt(24, -1).putInt(28, 1);
        assertEquals("OK", c.ask("typed a " + Fi.FI_UINT32 + " " + Fi.FI_MAX + " 2 " + hexInts(1, 0x80000000) + " - "
                + at(mr, 24) + key));
        assertEquals(-1, words.getInt(24));
        assertEquals(0x80000000, words.getInt(28));
        // FI_DOUBLE FI_PROD at 32: 1.5 * -4
        words.putDouble(32, 1.5);
        assertEquals("OK", c.ask("typed a " + Fi.FI_DOUBLE + " " + Fi.FI_PROD + " 1 "
                + hexLong(Double.doubleToLongBits(-4.0)) + " - " + at(mr, 32) + key));
        assertEquals(-6.0, words.getDouble(32));
        // FI_FLOAT_COMPLEX FI_SUM at 40: (1 + 2i) + (3 + 4i)
        words.putFloat(40, 1f).putFloat(44, 2f);
        assertEquals("OK", c.ask("typed a " + Fi.FI_FLOAT_COMPLEX + " " + Fi.FI_SUM + " 1 "
                + hexInts(Float.floatToIntBits(3f), Float.floatToIntBits(4f)) + " - " + at(mr, 40) + key));
        assertEquals(4f, words.getFloat(40));
        assertEquals(6f, words.getFloat(44));
        // FI_INT32 FI_CSWAP_LE at 48: compare 10 <= 10, so 99 goes in
        words.putInt(48, 10);
        assertEquals("OLD 0a000000", c.ask("typed c " + Fi.FI_INT32 + " " + Fi.FI_CSWAP_LE + " 1 " + hexInts(99) + " "
                + hexInts(10) + " " + at(mr, 48) + key));
        assertEquals(99, words.getInt(48));
        // FI_UINT64 FI_MSWAP at 56: (buf & compare) | (target & ~compare)
        words.putLong(56, 0x00ff00ff00ff00ffL);
        assertEquals("OLD " + hexLong(0x00ff00ff00ff00ffL), c.ask("typed c " + Fi.FI_UINT64 + " " + Fi.FI_MSWAP + " 1 "
                + hexLong(0x1234567812345678L) + " " + hexLong(0xffff0000ffff0000L) + " " + at(mr, 56) + key));
        assertEquals(0x123400ff123400ffL, words.getLong(56));
    }

    private static String at(MemoryRegion mr, int offset) {
        return Long.toUnsignedString(mr.address() + offset);
    }

    /** The ints' bytes as the host lays them out (C's memory), in hex. */
    private static String hexInts(int... v) {
        ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.nativeOrder());
        for (int x : v) {
            b.putInt(x);
        }
        return HexFormat.of().formatHex(b.array());
    }

    private static String hexLong(long v) {
        return HexFormat.of().formatHex(ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, v).array());
    }

    private static long insert(RdmTestBed.Node node, byte[] name) {
        long[] fi = {Fi.FI_ADDR_NOTAVAIL};
        assertEquals(1, node.av.insert(new byte[][] {name}, fi, 0, null), "av insert of the C peer");
        return fi[0];
    }

    private static void check(int rc) {
        assertEquals(0, rc, () -> "post: " + Errno.strerror(-rc));
    }

    private static void awaitTx(RdmTestBed.Node node, Object context) {
        CqEntry[] e = {new CqEntry()};
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (System.nanoTime() < deadline) {
            int rc = node.txCq.read(e, 1);
            if (rc == 1) {
                assertEquals(context, e[0].context());
                return;
            }
            if (rc != -Errno.EAGAIN) {
                CqErrEntry err = new CqErrEntry();
                node.txCq.readErr(err, 0);
                fail(context + ": " + err);
            }
            Thread.onSpinWait();
        }
        fail("no completion of " + context + " within " + WAIT_MS + " ms");
    }

    private static CqErrEntry awaitTxError(RdmTestBed.Node node) {
        CqEntry[] e = {new CqEntry()};
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (System.nanoTime() < deadline) {
            int rc = node.txCq.read(e, 1);
            if (rc == -Errno.EAVAIL) {
                CqErrEntry err = new CqErrEntry();
                assertEquals(1, node.txCq.readErr(err, 0));
                return err;
            }
            if (rc != -Errno.EAGAIN) {
                fail("expected an error completion, got " + rc);
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no error completion within " + WAIT_MS + " ms");
    }
}
