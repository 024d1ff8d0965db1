package io.jofi.provider.tcp.wire;

import java.nio.ByteOrder;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.domains.Domain;
import net.jqwik.api.domains.DomainContext;

/**
 * The long fuzz run of the wire decoders: the checks of {@link WirePropertiesTest} with
 * random seeds (jqwik prints the seed of a failure; put it in a fixed-seed property to keep the
 * case) and many tries, larger inputs. Tagged {@code fuzz}: excluded from the normal build, the
 * only tests run by {@code mvn -B -pl provider-tcp -Pfuzz test} (provider-tcp/README.md,
 * "Fuzzing the decoder"). Tries per property: {@code -Djofi.tcp.jqwik.tries=N} (profile
 * default 200000).
 */
@Tag("fuzz")
@Domain(WireArbitraries.class)
@Domain(DomainContext.Global.class)
class WireFuzzLongRunTest {

    @Provide
    Arbitrary<Integer> cmTypes() {
        return Arbitraries.of(TcpWireDescriptor.CM_TYPE_REQUEST, TcpWireDescriptor.CM_TYPE_ACCEPT, TcpWireDescriptor.CM_TYPE_REJECT);
    }

    private static ByteOrder order(final boolean littleEndian) {
        return littleEndian ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
    }

    @Property
    void headersRoundTrip(@ForAll final HeaderSpec spec, @ForAll final boolean littleEndian,
                          @ForAll @IntRange(max = 7) final int offset, @ForAll final boolean littleEndianBuffer) {
        WireFuzzChecks.checkRoundTrip(spec, order(littleEndian), offset, order(littleEndianBuffer));
    }

    @Property
    void validStreamsDecodeExactly(@ForAll final List<HeaderSpec> stream, @ForAll @IntRange(min = 1, max = 200) final int chunk,
                                   @ForAll final boolean littleEndian) {
        WireFuzzChecks.checkValidStream(stream, chunk, order(littleEndian));
    }

    @Property
    void mutatedStreamsKeepEveryInvariant(@ForAll final List<HeaderSpec> stream,
                                          @ForAll final List<WireArbitraries.Mutation> mutations,
                                          @ForAll @IntRange(min = 1, max = 200) final int chunk,
                                          @ForAll final boolean littleEndian) {
        byte[] bytes = WireFuzzChecks.encodeStream(stream, order(littleEndian));
        for (final WireArbitraries.Mutation mutation : mutations) {
            bytes = mutation.apply(bytes);
        }
        WireFuzzChecks.checkArbitrary(bytes, chunk, order(littleEndian), WireArbitraries.MAX_MESSAGE_SIZE);
    }

    @Property
    void randomBytesKeepEveryInvariant(@ForAll @Size(max = 2000) final byte[] bytes,
                                       @ForAll @IntRange(min = 1, max = 200) final int chunk,
                                       @ForAll final boolean littleEndian,
                                       @ForAll @LongRange(max = 1 << 20) final long maxMessageSize) {
        WireFuzzChecks.checkArbitrary(bytes, chunk, order(littleEndian), maxMessageSize);
    }

    @Property
    void mutatedCmMessagesKeepEveryInvariant(@ForAll("cmTypes") final int type, @ForAll @Size(max = 256) final byte[] data,
                                             @ForAll final List<WireArbitraries.Mutation> mutations) {
        byte[] bytes = WireFuzzChecks.encodeCm(type, data);
        for (final WireArbitraries.Mutation mutation : mutations) {
            bytes = mutation.apply(bytes);
        }
        WireFuzzChecks.checkDirect(bytes, ByteOrder.BIG_ENDIAN, WireArbitraries.MAX_MESSAGE_SIZE);
    }
}
