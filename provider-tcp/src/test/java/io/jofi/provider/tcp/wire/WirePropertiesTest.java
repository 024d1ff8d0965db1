package io.jofi.provider.tcp.wire;

import java.nio.ByteOrder;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.domains.Domain;
import net.jqwik.api.domains.DomainContext;

/**
 * Property tests of the wire codec, part of every build: fixed seeds, a bounded number of
 * tries ({@code jqwik.tries.default}, 2000 in the pom). Random headers round-trip; valid
 * streams decode exactly whatever the chunking; random and mutated bytes never make a
 * decoder throw, loop, get stuck or report a size its bytes do not justify. The same checks
 * run long with random seeds in {@link WireFuzzLongRunTest} ({@code -Pfuzz}).
 */
@Domain(WireArbitraries.class)
@Domain(DomainContext.Global.class)
class WirePropertiesTest {

    @Provide
    Arbitrary<Integer> cmTypes() {
        return Arbitraries.of(TcpWireDescriptor.CM_TYPE_REQUEST, TcpWireDescriptor.CM_TYPE_ACCEPT, TcpWireDescriptor.CM_TYPE_REJECT);
    }

    private static ByteOrder order(final boolean littleEndian) {
        return littleEndian ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
    }

    @Property(seed = "20261121")
    void headersRoundTrip(@ForAll final HeaderSpec spec, @ForAll final boolean littleEndian,
                          @ForAll @IntRange(max = 7) final int offset, @ForAll final boolean littleEndianBuffer) {
        WireFuzzChecks.checkRoundTrip(spec, order(littleEndian), offset, order(littleEndianBuffer));
    }

    @Property(seed = "20261122")
    void validStreamsDecodeExactly(@ForAll final List<HeaderSpec> stream, @ForAll @IntRange(min = 1, max = 64) final int chunk,
                                   @ForAll final boolean littleEndian) {
        WireFuzzChecks.checkValidStream(stream, chunk, order(littleEndian));
    }

    @Property(seed = "20261123")
    void mutatedStreamsKeepEveryInvariant(@ForAll final List<HeaderSpec> stream,
                                          @ForAll final List<WireArbitraries.Mutation> mutations,
                                          @ForAll @IntRange(min = 1, max = 64) final int chunk,
                                          @ForAll final boolean littleEndian) {
        byte[] bytes = WireFuzzChecks.encodeStream(stream, order(littleEndian));
        for (final WireArbitraries.Mutation mutation : mutations) {
            bytes = mutation.apply(bytes);
        }
        WireFuzzChecks.checkArbitrary(bytes, chunk, order(littleEndian), WireArbitraries.MAX_MESSAGE_SIZE);
    }

    @Property(seed = "20261124")
    void randomBytesKeepEveryInvariant(@ForAll @Size(max = 300) final byte[] bytes,
                                       @ForAll @IntRange(min = 1, max = 64) final int chunk,
                                       @ForAll final boolean littleEndian,
                                       @ForAll @LongRange(max = 1 << 20) final long maxMessageSize) {
        WireFuzzChecks.checkArbitrary(bytes, chunk, order(littleEndian), maxMessageSize);
    }

    @Property(seed = "20261125")
    void cmMessagesRoundTrip(@ForAll("cmTypes") final int type, @ForAll @Size(max = 256) final byte[] data) {
        WireFuzzChecks.checkCmRoundTrip(type, data);
    }

    @Property(seed = "20261126")
    void mutatedCmMessagesKeepEveryInvariant(@ForAll("cmTypes") final int type, @ForAll @Size(max = 256) final byte[] data,
                                             @ForAll final List<WireArbitraries.Mutation> mutations) {
        byte[] bytes = WireFuzzChecks.encodeCm(type, data);
        for (final WireArbitraries.Mutation mutation : mutations) {
            bytes = mutation.apply(bytes);
        }
        WireFuzzChecks.checkDirect(bytes, ByteOrder.BIG_ENDIAN, WireArbitraries.MAX_MESSAGE_SIZE);
    }
}
