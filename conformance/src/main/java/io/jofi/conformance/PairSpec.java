package io.jofi.conformance;

import io.jofi.CqAttr;
import io.jofi.CqFormat;
import io.jofi.EpType;
import io.jofi.Fi;
import java.util.Objects;

/**
 * What an {@link EndpointPair} needs: capabilities, mode bits, the CQ attributes and bind
 * flags of each side, and an optional step before enable. Fluent; the defaults give a plain
 * pair with {@code CqFormat.TAGGED} CQs (every field valid) bound without selective
 * completion.
 */
public final class PairSpec {
    long caps;
    long mode;
    EpType type;
    CqAttr txCq = new CqAttr().format(CqFormat.TAGGED);
    CqAttr rxCq = new CqAttr().format(CqFormat.TAGGED);
    long txBindFlags = Fi.FI_TRANSMIT;
    long rxBindFlags = Fi.FI_RECV;
    PeerSetup beforeEnable;
    /** The CQ roles ({@code FI_TRANSMIT}, {@code FI_RECV}) side a leaves unbound. */
    long unboundOnA;
    byte[] connectData;
    byte[] acceptData;
    /** Receive op flags added to each side's {@code Info.rxAttr().opFlags()} before its endpoint opens. */
    long rxOpFlags;
    /** Transmit op flags added to each side's {@code Info.txAttr().opFlags()} before its endpoint opens. */
    long txOpFlags;

    /** A pair with the given capabilities (e.g. {@code Fi.FI_MSG}). */
    public PairSpec(long caps) {
        this.caps = caps;
    }

    /** Mode bits the test accepts ({@code Info.mode} of the hints). */
    public PairSpec mode(long value) {
        this.mode = value;
        return this;
    }

    /** Forces the endpoint type (default: the kit's {@code epType()}). */
    public PairSpec type(EpType value) {
        this.type = value;
        return this;
    }

    /** Attributes of each side's transmit CQ. */
    public PairSpec txCq(CqAttr value) {
        this.txCq = Objects.requireNonNull(value, "txCq");
        return this;
    }

    /** Attributes of each side's receive CQ. */
    public PairSpec rxCq(CqAttr value) {
        this.rxCq = Objects.requireNonNull(value, "rxCq");
        return this;
    }

    /** Extra flags for binding the transmit CQ, e.g. {@code FI_SELECTIVE_COMPLETION}. */
    public PairSpec txBindFlags(long extra) {
        this.txBindFlags = Fi.FI_TRANSMIT | extra;
        return this;
    }

    /** Extra flags for binding the receive CQ, e.g. {@code FI_SELECTIVE_COMPLETION}. */
    public PairSpec rxBindFlags(long extra) {
        this.rxBindFlags = Fi.FI_RECV | extra;
        return this;
    }

    /**
     * Side a binds no CQ for {@code roles} ({@code FI_TRANSMIT} and/or {@code FI_RECV}); its
     * {@code txCq()} / {@code rxCq()} is then null. For the tests of an unbound CQ
     * ({@code ENOCQ}, at enable or at post).
     */
    public PairSpec unboundOnSideA(long roles) {
        this.unboundOnA = roles;
        return this;
    }

    /** A step run on each side before enable (bind counters, set options, ...). */
    public PairSpec beforeEnable(PeerSetup value) {
        this.beforeEnable = value;
        return this;
    }

    /**
     * Receive op flags ({@code RxAttr.opFlags}, fi_endpoint(3)) added to the Info each side
     * opens its endpoint with, e.g. {@code FI_MULTI_RECV}: the flags {@code recv} and
     * {@code trecv} apply.
     */
    public PairSpec rxOpFlags(long value) {
        this.rxOpFlags = value;
        return this;
    }

    /**
     * Transmit op flags ({@code TxAttr.opFlags}, fi_endpoint(3)) added to the Info each side
     * opens its endpoint with, e.g. {@code FI_INJECT}: the flags the plain sends apply.
     */
    public PairSpec txOpFlags(long value) {
        this.txOpFlags = value;
        return this;
    }

    /** Connection data of {@code connect} (MSG). */
    public PairSpec connectData(byte[] value) {
        this.connectData = value;
        return this;
    }

    /** Connection data of {@code accept} (MSG). */
    public PairSpec acceptData(byte[] value) {
        this.acceptData = value;
        return this;
    }
}
