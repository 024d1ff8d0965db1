package io.jofi.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** fabtests' size ranges and data pattern as the perf commands take them. */
class FabtestsOptionsTest {

    @Test
    void rangesAreStartIncEndInclusive() {
        assertArrayEquals(new int[] {1, 501, 1001, 1501, 2001}, PerfCommand.range("r:1,500,2001"));
        assertArrayEquals(new int[] {100, 4100}, PerfCommand.range("r:100,4000,8000"));
        assertArrayEquals(new int[] {1024, 2048, 3072}, PerfCommand.range("R:1k,1k,3k"));
        assertEquals(ExitStatus.USAGE, assertThrows(CommandFailure.class, () -> PerfCommand.range("r:5,1,4")).status());
        assertEquals(ExitStatus.USAGE, assertThrows(CommandFailure.class, () -> PerfCommand.range("r:1,0,4")).status());
        assertEquals(ExitStatus.USAGE, assertThrows(CommandFailure.class, () -> PerfCommand.range("r:1,2")).status());
    }

    @Test
    void thePatternIsFabtestsAlphabetAndAWrongByteIsADataCheckError() {
        ByteBuffer b = ByteBuffer.allocate(70);
        DataPattern.fill(b, 70);
        byte[] bytes = new byte[70];
        b.get(0, bytes);
        assertEquals("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01234567",
                new String(bytes, StandardCharsets.US_ASCII));
        DataPattern.check(b, 70);
        b.put(63, (byte) 'x');
        CommandFailure f = assertThrows(CommandFailure.class, () -> DataPattern.check(b, 70));
        assertEquals("Data check error (1!=x) at byte 63 for buffer size 70", f.getMessage());
        assertEquals(ExitStatus.FAILURE, f.status());
    }
}
