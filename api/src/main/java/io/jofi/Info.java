package io.jofi;

import java.util.Arrays;
import java.util.Objects;

/**
 * One fabric interface description: libfabric's {@code struct fi_info} (see fi_getinfo(3)).
 * {@code Fabrics.getInfo} returns a list of them and takes one as hints; {@code Fabric.domain},
 * {@code Domain.endpoint} and {@code Fabric.passiveEndpoint} are opened from one; an
 * {@code FI_CONNREQ} event carries one whose {@link #handle()} identifies the request.
 *
 * <p>Like {@code fi_allocinfo}, a new {@code Info} has zeroed, non-null {@link #txAttr()},
 * {@link #rxAttr()}, {@link #epAttr()}, {@link #domainAttr()} and {@link #fabricAttr()}, so that
 * hints can be written fluently: {@code new Info().caps(Fi.FI_MSG).epAttr().type(EpType.MSG)}. The
 * nested attributes may be set to null, meaning "no constraint" in hints. {@link #copy()} is deep.
 * The {@code nic} field of {@code fi_info} is not carried.
 */
public class Info {
    private long caps;
    private long mode;
    private AddrFormat addrFormat = AddrFormat.UNSPEC;
    private byte[] srcAddr;
    private byte[] destAddr;
    private ConnReq handle;
    private TxAttr txAttr;
    private RxAttr rxAttr;
    private EpAttr epAttr;
    private DomainAttr domainAttr;
    private FabricAttr fabricAttr;

    /**
     * Creates an empty description, as {@code fi_allocinfo}: every number 0, every enum
     * {@code UNSPEC}, addresses and handle null, and zeroed, non-null nested attributes.
     */
    public Info() {
        txAttr = new TxAttr();
        rxAttr = new RxAttr();
        epAttr = new EpAttr();
        domainAttr = new DomainAttr();
        fabricAttr = new FabricAttr();
    }

    /**
     * {@code caps}: primary and secondary capabilities ({@code Fi.FI_MSG}, {@code FI_RMA},
     * {@code FI_TAGGED}, ...).
     */
    public long caps() {
        return caps;
    }

    /** Sets {@link #caps()} ({@code caps}); returns this. */
    public Info caps(long value) {
        this.caps = value;
        return this;
    }

    /**
     * {@code mode}: mode bits: in hints, those the application supports; in results, those the
     * provider needs.
     */
    public long mode() {
        return mode;
    }

    /** Sets {@link #mode()} ({@code mode}); returns this. */
    public Info mode(long value) {
        this.mode = value;
        return this;
    }

    /**
     * {@code addr_format}: the format of {@link #srcAddr()}, {@link #destAddr()} and the endpoint's
     * names; {@link AddrFormat#UNSPEC} by default.
     */
    public AddrFormat addrFormat() {
        return addrFormat;
    }

    /** Sets {@link #addrFormat()} ({@code addr_format}), never null; returns this. */
    public Info addrFormat(AddrFormat value) {
        this.addrFormat = Objects.requireNonNull(value, "addrFormat");
        return this;
    }

    /** {@code src_addr}: the local address (see {@link Addresses}); null when unspecified. */
    public byte[] srcAddr() {
        return srcAddr;
    }

    /** Sets {@link #srcAddr()} ({@code src_addr}); the array is kept, not copied. Returns this. */
    public Info srcAddr(byte[] value) {
        this.srcAddr = value;
        return this;
    }

    /** {@code dest_addr}: the peer's address (see {@link Addresses}); null when unspecified. */
    public byte[] destAddr() {
        return destAddr;
    }

    /**
     * Sets {@link #destAddr()} ({@code dest_addr}); the array is kept, not copied. Returns this.
     */
    public Info destAddr(byte[] value) {
        this.destAddr = value;
        return this;
    }

    /**
     * {@code handle}: the connection request of an {@code FI_CONNREQ} event (to pass to
     * {@code accept}/{@code reject}); null otherwise.
     */
    public ConnReq handle() {
        return handle;
    }

    /** Sets {@link #handle()} ({@code handle}); returns this. */
    public Info handle(ConnReq value) {
        this.handle = value;
        return this;
    }

    /** {@code tx_attr}: transmit context attributes, or null. */
    public TxAttr txAttr() {
        return txAttr;
    }

    /** Sets {@link #txAttr()} ({@code tx_attr}); returns this. */
    public Info txAttr(TxAttr value) {
        this.txAttr = value;
        return this;
    }

    /** {@code rx_attr}: receive context attributes, or null. */
    public RxAttr rxAttr() {
        return rxAttr;
    }

    /** Sets {@link #rxAttr()} ({@code rx_attr}); returns this. */
    public Info rxAttr(RxAttr value) {
        this.rxAttr = value;
        return this;
    }

    /** {@code ep_attr}: endpoint attributes, or null. */
    public EpAttr epAttr() {
        return epAttr;
    }

    /** Sets {@link #epAttr()} ({@code ep_attr}); returns this. */
    public Info epAttr(EpAttr value) {
        this.epAttr = value;
        return this;
    }

    /** {@code domain_attr}: domain attributes, or null. */
    public DomainAttr domainAttr() {
        return domainAttr;
    }

    /** Sets {@link #domainAttr()} ({@code domain_attr}); returns this. */
    public Info domainAttr(DomainAttr value) {
        this.domainAttr = value;
        return this;
    }

    /** {@code fabric_attr}: fabric attributes, or null. */
    public FabricAttr fabricAttr() {
        return fabricAttr;
    }

    /** Sets {@link #fabricAttr()} ({@code fabric_attr}); returns this. */
    public Info fabricAttr(FabricAttr value) {
        this.fabricAttr = value;
        return this;
    }

    /** {@code src_addrlen}: the length of {@link #srcAddr()}, 0 when it is null. */
    public long srcAddrLen() {
        return srcAddr == null ? 0 : srcAddr.length;
    }

    /** {@code dest_addrlen}: the length of {@link #destAddr()}, 0 when it is null. */
    public long destAddrLen() {
        return destAddr == null ? 0 : destAddr.length;
    }

    /**
     * A one-line summary, with what {@code fi_info} prints without {@code -v}:
     * {@code provider: tcp, fabric: 127.0.0.0/8, domain: lo, version: 1.0, type: FI_EP_MSG,
     * protocol: FI_PROTO_SOCK_TCP}. Missing attributes print as {@code (null)}.
     */
    public String toShortString() {
        FabricAttr f = fabricAttr;
        DomainAttr d = domainAttr;
        EpAttr e = epAttr;
        String none = AttrFormat.NULL;
        return "provider: " + (f == null ? none : AttrFormat.str(f.provName()))
                + ", fabric: " + (f == null ? none : AttrFormat.str(f.name()))
                + ", domain: " + (d == null ? none : AttrFormat.str(d.name()))
                + ", version: " + (f == null ? none : AttrFormat.version(f.provVersion()))
                + ", type: " + (e == null ? none : e.type().fiName())
                + ", protocol: " + (e == null ? none : AttrFormat.protocol(e.protocol()));
    }

    /**
     * A copy of these attributes: nested attributes and address arrays are copied too, references
     * to live objects ({@code handle}) are shared.
     */
    public Info copy() {
        Info c = new Info();
        c.caps = caps;
        c.mode = mode;
        c.addrFormat = addrFormat;
        c.srcAddr = srcAddr == null ? null : srcAddr.clone();
        c.destAddr = destAddr == null ? null : destAddr.clone();
        c.handle = handle;
        c.txAttr = txAttr == null ? null : txAttr.copy();
        c.rxAttr = rxAttr == null ? null : rxAttr.copy();
        c.epAttr = epAttr == null ? null : epAttr.copy();
        c.domainAttr = domainAttr == null ? null : domainAttr.copy();
        c.fabricAttr = fabricAttr == null ? null : fabricAttr.copy();
        return c;
    }

    /** Equal when every field is equal (address arrays by content; {@code handle} by identity). */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o == null || o.getClass() != getClass()) {
            return false;
        }
        Info other = (Info) o;
        return caps == other.caps && mode == other.mode && addrFormat == other.addrFormat
                && Arrays.equals(srcAddr, other.srcAddr) && Arrays.equals(destAddr, other.destAddr)
                && handle == other.handle && Objects.equals(txAttr, other.txAttr)
                && Objects.equals(rxAttr, other.rxAttr) && Objects.equals(epAttr, other.epAttr)
                && Objects.equals(domainAttr, other.domainAttr)
                && Objects.equals(fabricAttr, other.fabricAttr);
    }

    @Override
    public int hashCode() {
        int h = 17;
        h = 31 * h + Long.hashCode(caps);
        h = 31 * h + Long.hashCode(mode);
        h = 31 * h + addrFormat.ordinal();
        h = 31 * h + Arrays.hashCode(srcAddr);
        h = 31 * h + Arrays.hashCode(destAddr);
        h = 31 * h + System.identityHashCode(handle);
        h = 31 * h + Objects.hashCode(txAttr);
        h = 31 * h + Objects.hashCode(rxAttr);
        h = 31 * h + Objects.hashCode(epAttr);
        h = 31 * h + Objects.hashCode(domainAttr);
        h = 31 * h + Objects.hashCode(fabricAttr);
        return h;
    }

    /**
     * The description as {@code fi_info -v} ({@code fi_tostr(FI_TYPE_INFO)}) prints it: a
     * YAML-like block starting with {@code fi_info:}, the fields one per line, bit masks as
     * {@code [ FI_MSG, FI_RMA ]}, addresses as {@link Addresses#toString(byte[])} prints them,
     * and the nested attributes as indented {@code fi_tx_attr:}, {@code fi_rx_attr:},
     * {@code fi_ep_attr:}, {@code fi_domain_attr:} and {@code fi_fabric_attr:} blocks.
     */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(2048);
        String p = AttrFormat.TAB;
        sb.append("fi_info:\n");
        AttrFormat.line(sb, p, "caps", AttrFormat.caps(caps));
        AttrFormat.line(sb, p, "mode", AttrFormat.mode(mode));
        AttrFormat.line(sb, p, "addr_format", addrFormat.fiName());
        AttrFormat.line(sb, p, "src_addrlen", srcAddrLen());
        AttrFormat.line(sb, p, "dest_addrlen", destAddrLen());
        AttrFormat.line(sb, p, "src_addr", AttrFormat.addr(srcAddr));
        AttrFormat.line(sb, p, "dest_addr", AttrFormat.addr(destAddr));
        AttrFormat.line(sb, p, "handle", AttrFormat.ref(handle));
        if (txAttr == null) {
            AttrFormat.line(sb, p, "fi_tx_attr", AttrFormat.NULL);
        } else {
            txAttr.appendTo(sb, p);
        }
        if (rxAttr == null) {
            AttrFormat.line(sb, p, "fi_rx_attr", AttrFormat.NULL);
        } else {
            rxAttr.appendTo(sb, p);
        }
        if (epAttr == null) {
            AttrFormat.line(sb, p, "fi_ep_attr", AttrFormat.NULL);
        } else {
            epAttr.appendTo(sb, p);
        }
        if (domainAttr == null) {
            AttrFormat.line(sb, p, "fi_domain_attr", AttrFormat.NULL);
        } else {
            domainAttr.appendTo(sb, p);
        }
        if (fabricAttr == null) {
            AttrFormat.line(sb, p, "fi_fabric_attr", AttrFormat.NULL);
        } else {
            fabricAttr.appendTo(sb, p);
        }
        sb.setLength(sb.length() - 1); // no trailing newline
        return sb.toString();
    }
}
