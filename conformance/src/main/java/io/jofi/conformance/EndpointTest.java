package io.jofi.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.jofi.CqEntry;
import io.jofi.CqErrEntry;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.MemoryRegion;
import java.nio.ByteBuffer;
import java.util.function.IntSupplier;

/**
 * The base of the suites that need an endpoint pair: posting with retry on {@code -EAGAIN}
 * (docs/API.md: the caller drives progress and retries), buffers with recognisable contents, and
 * waits for completions on a side's CQs.
 */
public abstract class EndpointTest extends ProviderTest {
    /** Opens a pair with {@code caps} and default CQs. */
    protected EndpointPair pair(long caps) throws FabricException {
        return fx.openPair(new PairSpec(caps));
    }

    /**
     * Runs a data-path post until it returns something other than {@code -EAGAIN} (driving
     * progress in between, bounded), and fails unless that is 0.
     */
    protected void post(IntSupplier op, String what) {
        int[] rc = {0};
        await().until(() -> (rc[0] = op.getAsInt()) != -Errno.EAGAIN, what + " to be accepted (it kept returning -EAGAIN)");
        if (rc[0] != 0) {
            fail(what + " returned " + rc[0] + " (" + Errno.strerror(-rc[0]) + ")");
        }
    }

    /** A direct buffer of {@code n} bytes, each {@code (seed + i)}. */
    protected static ByteBuffer pattern(int n, int seed) {
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        for (int i = 0; i < n; i++) {
            b.put(i, (byte) (seed + i));
        }
        return b;
    }

    /** A zeroed direct buffer of {@code n} bytes. */
    protected static ByteBuffer zeroed(int n) {
        return ByteBuffer.allocateDirect(n);
    }

    /** Asserts that {@code buf[at, at + n)} holds the pattern of {@link #pattern(int, int)} with {@code seed}. */
    protected static void assertPattern(ByteBuffer buf, int at, int n, int seed, String what) {
        for (int i = 0; i < n; i++) {
            if (buf.get(at + i) != (byte) (seed + i)) {
                fail(what + ": byte " + i + " is " + buf.get(at + i) + ", expected " + (byte) (seed + i));
            }
        }
    }

    /** Asserts that {@code buf}'s position and limit are what they were (docs/API.md: no call moves them). */
    protected static void assertUnmoved(ByteBuffer buf, int position, int limit, String what) {
        assertEquals(position, buf.position(), what + ": position must not change");
        assertEquals(limit, buf.limit(), what + ": limit must not change");
    }

    /** Waits for the next successful completion on {@code side}'s transmit CQ. */
    protected CqEntry txCompletion(PeerSide side, String what) {
        return await().completion(side.txCq(), new CqEntry(), what + " (transmit completion on " + side + ")");
    }

    /** Waits for the next successful completion on {@code side}'s receive CQ. */
    protected CqEntry rxCompletion(PeerSide side, String what) {
        return await().completion(side.rxCq(), new CqEntry(), what + " (receive completion on " + side + ")");
    }

    /** Waits for an error completion on {@code side}'s receive CQ. */
    protected CqErrEntry rxError(PeerSide side, String what) {
        return await().error(side.rxCq(), new CqErrEntry(), what + " (receive error on " + side + ")");
    }

    /** Waits for an error completion on {@code side}'s transmit CQ. */
    protected CqErrEntry txError(PeerSide side, String what) {
        return await().error(side.txCq(), new CqErrEntry(), what + " (transmit error on " + side + ")");
    }

    /** The local descriptor for {@code buf} (a registration only when the domain needs FI_MR_LOCAL). */
    protected MemoryRegion desc(ByteBuffer buf) throws FabricException {
        return fx.localDesc(buf);
    }

    /** Asserts that every bit of {@code expected} is set in {@code flags}. */
    protected static void assertFlags(long expected, long flags, String what) {
        if ((flags & expected) != expected) {
            fail(what + ": flags " + Caps.names(flags) + " lack " + Caps.names(expected & ~flags)
                    + " (R16: without FI_NOTIFY_FLAGS_ONLY every relevant flag is set)");
        }
    }

    /** {@code Fi.FI_ADDR_UNSPEC}: "from anyone" for receives. */
    protected static final long ANY = Fi.FI_ADDR_UNSPEC;
}
