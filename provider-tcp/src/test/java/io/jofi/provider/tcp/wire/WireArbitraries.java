package io.jofi.provider.tcp.wire;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Provide;
import net.jqwik.api.domains.DomainContextBase;

/** jqwik generators of the wire property tests: valid headers, streams of them, mutations. */
class WireArbitraries extends DomainContextBase {

    /** Payload limit of the generated headers (and the decoders' maximum in the properties). */
    static final long MAX_MESSAGE_SIZE = 1 << 20;

    /** Flag words: the defined bits in any combination, sometimes with undefined bits too. */
    private static Arbitrary<Integer> flags() {
        final int defined = TcpWireDescriptor.FLAG_REMOTE_CQ_DATA | TcpWireDescriptor.FLAG_DELIVERY_COMPLETE
            | TcpWireDescriptor.FLAG_COMMIT_COMPLETE | TcpWireDescriptor.FLAG_TAGGED;
        return Arbitraries.oneOf(
            Arbitraries.integers().between(0, 0xFF).map(f -> f & defined),
            Arbitraries.integers().between(0, 0xFFFF));
    }

    private static Arbitrary<HeaderSpec> headers(final long maxPayload) {
        final Arbitrary<Integer> op = Arbitraries.integers().between(0, TcpWireDescriptor.MAX_OP);
        final Arbitrary<Integer> rmaIovCount = Arbitraries.integers().between(0, TcpWireDescriptor.MAX_RMA_IOV_COUNT);
        final Arbitrary<Integer> opDataAndId = Arbitraries.integers().between(0, 0xFFFF);
        final Arbitrary<Long> word = Arbitraries.longs();
        final Arbitrary<List<Long>> iovWords = Arbitraries.longs().list().ofSize(3 * TcpWireDescriptor.MAX_RMA_IOV_COUNT);
        final Arbitrary<Long> payload = Arbitraries.longs().between(0, maxPayload);
        return Combinators.combine(op, flags(), rmaIovCount, opDataAndId, word, word, iovWords, payload)
            .as((o, f, n, od, cq, tag, iov, len) -> new HeaderSpec(o, f, n, od & 0xFF, od >>> 8, cq, tag, iov, len))
            .filter(HeaderSpec::fits);
    }

    /** Any valid header, payload length up to {@link #MAX_MESSAGE_SIZE}. */
    @Provide
    Arbitrary<HeaderSpec> validHeaders() {
        return headers(MAX_MESSAGE_SIZE);
    }

    /** A connection's worth of valid messages with small payloads (materialised by the checks). */
    @Provide
    Arbitrary<List<HeaderSpec>> validStreams() {
        return headers(64).list().ofMinSize(1).ofMaxSize(6);
    }

    /** Byte mutations (index taken modulo the stream length, value XORed in). */
    @Provide
    Arbitrary<List<Mutation>> mutations() {
        final Arbitrary<Mutation> one = Combinators.combine(
            Arbitraries.integers().between(0, Integer.MAX_VALUE),
            Arbitraries.integers().between(1, 0xFF),
            Arbitraries.integers().between(0, 2)).as(Mutation::new);
        return one.list().ofMinSize(1).ofMaxSize(4);
    }

    /** One mutation of a byte stream. */
    record Mutation(int index, int xor, int kind) {
        /** kind 0: XOR a byte; 1: drop the tail from index; 2: insert a byte at index. */
        byte[] apply(final byte[] bytes) {
            if (bytes.length == 0) {
                return bytes;
            }
            final int at = index % bytes.length;
            switch (kind) {
                case 0: {
                    final byte[] out = bytes.clone();
                    out[at] ^= (byte) xor;
                    return out;
                }
                case 1:
                    return java.util.Arrays.copyOf(bytes, at);
                default: {
                    final byte[] out = new byte[bytes.length + 1];
                    System.arraycopy(bytes, 0, out, 0, at);
                    out[at] = (byte) xor;
                    System.arraycopy(bytes, at, out, at + 1, bytes.length - at);
                    return out;
                }
            }
        }
    }
}
