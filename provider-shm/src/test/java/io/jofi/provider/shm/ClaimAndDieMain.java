package io.jofi.provider.shm;

import io.jofi.provider.shm.ring.RegionDescriptor;
import io.jofi.provider.shm.ring.RingDescriptor;
import io.jofi.provider.shm.ring.ShmRegion;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * A child JVM that dies exactly inside a ring claim, as a producer killed between its CAS of
 * the tail and its store of the record's length does: it maps an endpoint's region, CASes the
 * ring tail forward by one record (the layout's offsets, as {@code MpscRing.claim} does), writes
 * what the stage says of the record header, and halts — the length word stays 0 for good.
 *
 * <pre>
 * args: &lt;dir&gt; &lt;region name&gt; cas|header &lt;payload bytes&gt;
 *   cas:    nothing stored after the CAS
 *   header: type and sender (its pid) stored, not the length
 * out:  CLAIMED &lt;ring offset&gt;, then the process halts (exit code 0, no shutdown hooks)
 * </pre>
 */
public final class ClaimAndDieMain {
    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private ClaimAndDieMain() {
    }

    public static void main(String[] args) throws Exception {
        ShmRegion region = ShmRegion.map(Path.of(args[0]), args[1]);
        boolean header = args[2].equals("header");
        int aligned = RingDescriptor.alignedLength(RingDescriptor.HEADER_LENGTH + Integer.parseInt(args[3]));
        ByteBuffer whole = region.mapping().order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer ring = region.ring().buffer();
        int capacity = region.ring().capacity();
        while (true) {
            long tail = (long) LONG.getVolatile(whole, RegionDescriptor.TAIL_OFFSET);
            long head = (long) LONG.getVolatile(whole, RegionDescriptor.HEAD_OFFSET);
            int index = (int) (tail & (capacity - 1));
            if (capacity - index < aligned || capacity - (tail - head) < aligned) {
                throw new IllegalStateException("the test wants a claim that fits before the end of an empty ring");
            }
            if (LONG.compareAndSet(whole, RegionDescriptor.TAIL_OFFSET, tail, tail + aligned)) {
                if (header) {
                    INT.set(ring, index + RingDescriptor.TYPE_OFFSET, 1);
                    INT.setRelease(ring, index + RingDescriptor.SENDER_OFFSET, (int) ProcessHandle.current().pid());
                }
                System.out.println("CLAIMED " + index);
                System.out.flush();
                Runtime.getRuntime().halt(0);
            }
        }
    }
}
