package io.jofi.spi.util;

import io.jofi.AvType;
import io.jofi.DomainAttr;
import io.jofi.EpAttr;
import io.jofi.Errno;
import io.jofi.FabricAttr;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import io.jofi.RxAttr;
import io.jofi.Threading;
import io.jofi.TxAttr;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * libfabric's hint matching for {@code fi_getinfo} (fi_getinfo(3); the util layer's
 * {@code ofi_check_info} and {@code ofi_alter_info}), for every provider's
 * {@link io.jofi.spi.FabricProvider#getInfo}: decide whether an offered {@link Info} meets the
 * application's hints, say in words which hint it does not meet, and build the {@link Info}
 * to return.
 *
 * <p>The checks run in libfabric's order, and the first unmet hint is the one reported:
 * provider name, endpoint type, capabilities, mode, address format, fabric attributes
 * (name, provider version, API version), domain attributes (name, threading, control and data
 * progress, resource management, AV type, CQ data size, MR mode, counter count, MR iov limit,
 * domain caps and mode, max error data, MR count), endpoint attributes (protocol, protocol
 * version, max message size, context counts, RMA/atomic ordering sizes, tag format), then the
 * receive and transmit attributes (caps, mode, op flags, message and completion order, sizes,
 * iov limits, inject size). A hint that is zero, {@code UNSPEC} or {@code null} (including a
 * {@code null} nested attribute) constrains nothing. Sizes are {@code size_t}s and compared
 * unsigned.
 *
 * <p>Stateless and thread-safe; control path only (it allocates).
 */
public final class InfoMatcher {

    /** Direction modifiers of FI_MSG / FI_TAGGED. */
    private static final long MSG_DIRECTION_CAPS = Fi.FI_SEND | Fi.FI_RECV;
    /** Direction modifiers of FI_RMA / FI_ATOMIC. */
    private static final long RMA_DIRECTION_CAPS =
            Fi.FI_READ | Fi.FI_WRITE | Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE;
    /** MR mode bits that only matter when the endpoint is the target of RMA/atomics. */
    private static final long MR_MODE_RMA_TARGET =
            Fi.FI_MR_RAW | Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_PROV_KEY | Fi.FI_MR_RMA_EVENT;
    // Read-only stand-ins for null nested attributes of an offered Info (never handed out).
    private static final FabricAttr NO_FABRIC = new FabricAttr();
    private static final DomainAttr NO_DOMAIN = new DomainAttr();
    private static final EpAttr NO_EP = new EpAttr();
    private static final RxAttr NO_RX = new RxAttr();
    private static final TxAttr NO_TX = new TxAttr();

    private InfoMatcher() {
    }

    /**
     * Whether {@code offered} meets {@code hints} (fi_getinfo(3), libfabric's
     * {@code ofi_check_info}).
     *
     * <p>Capabilities: the hinted caps must be a subset of the offered caps, where offered
     * {@code FI_MSG}/{@code FI_TAGGED} without {@code FI_SEND}/{@code FI_RECV} (and
     * {@code FI_RMA}/{@code FI_ATOMIC} without direction bits) mean both directions, as
     * fi_getinfo(3) defines them. Mode: every mode bit the offered info needs must be in
     * {@code hints.mode()} ({@code FI_LOCAL_MR} is also satisfied by {@code FI_MR_LOCAL} in the
     * hinted {@code mr_mode}). Levels: threading is ordered SAFE, FID, ENDPOINT, COMPLETION,
     * DOMAIN, UNSPEC and a hint may not ask for a safer level than offered; progress AUTO, MANUAL,
     * UNSPEC; resource management ENABLED, DISABLED, UNSPEC.
     *
     * @param offered one of the provider's infos
     * @param hints   the application's hints; {@code null} = no hints, everything matches
     * @return {@code null} when {@code offered} meets {@code hints}, else a short sentence
     *         naming the first hint not met, e.g. {@code ep_type FI_EP_RDM not offered (FI_EP_MSG)}
     *         or {@code caps FI_RMA not supported}
     */
    public static String mismatch(Info offered, Info hints) {
        if (hints == null) {
            return null;
        }
        for (int s = 0; s < InfoChecks.SECTIONS; s++) {
            String m = InfoChecks.check(s, offered, hints);
            if (m != null) {
                return m;
            }
        }
        return null;
    }

    /**
     * The {@link Info} to return for an offered info that meets {@code hints} (libfabric's
     * {@code ofi_alter_info}): a deep copy of {@code offered} (null nested attributes become
     * zeroed ones) where, with hints,
     * <ul>
     * <li>{@code caps} = the hinted primary caps + the offered secondary caps (all offered caps
     * when the hinted caps are 0), the offered direction modifiers added when the hint names
     * none, and {@code FI_REMOTE_READ}/{@code FI_REMOTE_WRITE} removed when the offered
     * {@code mr_mode} needs RMA-target bits the hinted {@code mr_mode} does not accept;</li>
     * <li>domain, tx and rx caps narrowed the same way; {@code mr_mode} narrowed to the bits the
     * returned caps need; hinted threading, control/data progress and AV type applied;</li>
     * <li>hinted endpoint context counts and (with RMA/atomics) ordering sizes applied;</li>
     * <li>hinted tx/rx op flags applied, and hinted non-zero tx/rx {@code size},
     * {@code iov_limit}, {@code inject_size}, {@code rma_iov_limit} applied, rx
     * {@code total_buffered_recv} taken from the hints;</li>
     * <li>{@code handle} taken from the hints when they carry one.</li>
     * </ul>
     * The offered tx/rx op flags are the ones an endpoint can apply, never defaults: the returned
     * ones are the hinted ones, none without hints (or without hinted tx/rx attributes).
     * Without hints the copy is returned otherwise unchanged. Source and destination addresses are the
     * provider's business (node/service resolution), not this method's.
     */
    public static Info merge(Info offered, Info hints) {
        Info r = offered.copy();
        if (r.fabricAttr() == null) {
            r.fabricAttr(new FabricAttr());
        }
        if (r.domainAttr() == null) {
            r.domainAttr(new DomainAttr());
        }
        if (r.epAttr() == null) {
            r.epAttr(new EpAttr());
        }
        if (r.rxAttr() == null) {
            r.rxAttr(new RxAttr());
        }
        if (r.txAttr() == null) {
            r.txAttr(new TxAttr());
        }
        // the offered op flags are what the endpoint can apply; they become defaults only when asked
        r.rxAttr().opFlags(0);
        r.txAttr().opFlags(0);
        if (hints == null) {
            return r;
        }
        DomainAttr hd = hints.domainAttr();
        long hintMrMode = hd == null ? 0 : hd.mrMode();

        long caps = infoCaps(r, hints);
        r.caps(caps);
        if (hints.handle() != null) {
            r.handle(hints.handle());
        }

        // Domain: mr_mode first (it reads the provider's own value), then caps and levels.
        DomainAttr d = r.domainAttr();
        if ((hintMrMode & (Fi.FI_MR_BASIC | Fi.FI_MR_SCALABLE)) != 0) {
            d.mrMode(hintMrMode);
        } else if (hd != null && (hintMrMode & d.mrMode()) != d.mrMode()) {
            // The check passed, so the bits the hints lack are not needed for these caps.
            d.mrMode(capMrMode(caps, d.mrMode() & hintMrMode));
        }
        d.caps(narrowCaps(caps, hd == null ? 0 : hd.caps(), d.caps()));
        if (hd != null) {
            if (hd.threading() != Threading.UNSPEC) {
                d.threading(hd.threading());
            }
            if (hd.controlProgress() != Progress.UNSPEC) {
                d.controlProgress(hd.controlProgress());
            }
            if (hd.dataProgress() != Progress.UNSPEC) {
                d.dataProgress(hd.dataProgress());
            }
            if (hd.avType() != AvType.UNSPEC) {
                d.avType(hd.avType());
            }
        }

        EpAttr he = hints.epAttr();
        if (he != null) {
            EpAttr e = r.epAttr();
            if ((caps & (Fi.FI_RMA | Fi.FI_ATOMIC)) != 0) {
                if (he.maxOrderRawSize() != 0) {
                    e.maxOrderRawSize(he.maxOrderRawSize());
                }
                if (he.maxOrderWarSize() != 0) {
                    e.maxOrderWarSize(he.maxOrderWarSize());
                }
                if (he.maxOrderWawSize() != 0) {
                    e.maxOrderWawSize(he.maxOrderWawSize());
                }
            }
            if (he.txCtxCnt() != 0) {
                e.txCtxCnt(he.txCtxCnt());
            }
            if (he.rxCtxCnt() != 0) {
                e.rxCtxCnt(he.rxCtxCnt());
            }
        }

        RxAttr hr = hints.rxAttr();
        RxAttr rx = r.rxAttr();
        rx.caps(narrowCaps(caps, hr == null ? 0 : hr.caps(), rx.caps()));
        if (hr != null) {
            rx.opFlags(hr.opFlags());
            rx.totalBufferedRecv(hr.totalBufferedRecv());
            if (hr.size() != 0) {
                rx.size(hr.size());
            }
            if (hr.iovLimit() != 0) {
                rx.iovLimit(hr.iovLimit());
            }
        }

        TxAttr ht = hints.txAttr();
        TxAttr tx = r.txAttr();
        tx.caps(narrowCaps(caps, ht == null ? 0 : ht.caps(), tx.caps()));
        if (ht != null) {
            tx.opFlags(ht.opFlags());
            if (ht.injectSize() != 0) {
                tx.injectSize(ht.injectSize());
            }
            if (ht.size() != 0) {
                tx.size(ht.size());
            }
            if (ht.iovLimit() != 0) {
                tx.iovLimit(ht.iovLimit());
            }
            if (ht.rmaIovLimit() != 0) {
                tx.rmaIovLimit(ht.rmaIovLimit());
            }
        }
        return r;
    }

    /**
     * A provider's whole {@code fi_getinfo} answer: every offered info that meets
     * {@code hints}, {@linkplain #merge merged} with them, in the offered order (the provider's
     * own order, best first). Without hints every offered info matches. {@code null} elements
     * are skipped.
     *
     * @param providerName the provider's name, for the message
     * @throws FabricException {@link Errno#ENODATA} when nothing matches, with the message
     *         {@code "<provider>: <first mismatch>"}; the mismatch is that of the offered info
     *         that met the most hints (for an endpoint type nobody offers, the offered types
     *         are listed), or {@code "offers no interfaces"} when {@code offered} is empty
     */
    public static List<Info> filter(List<Info> offered, Info hints, String providerName)
            throws FabricException {
        List<Info> out = new ArrayList<>(offered == null ? 0 : offered.size());
        int deepest = -1;
        String reason = null;
        Set<String> offeredTypes = new LinkedHashSet<>();
        if (offered != null) {
            for (Info o : offered) {
                if (o == null) {
                    continue;
                }
                int failed = -1;
                String m = null;
                if (hints != null) {
                    for (int s = 0; s < InfoChecks.SECTIONS && m == null; s++) {
                        m = InfoChecks.check(s, o, hints);
                        failed = s;
                    }
                }
                if (m == null) {
                    out.add(merge(o, hints));
                } else {
                    offeredTypes.add(ep(o).type().fiName());
                    if (failed > deepest) {
                        deepest = failed;
                        reason = m;
                    }
                }
            }
        }
        if (!out.isEmpty()) {
            return out;
        }
        if (reason == null) {
            reason = "offers no interfaces";
        } else if (deepest == InfoChecks.EP_TYPE && offeredTypes.size() > 1) {
            reason = "ep_type " + hints.epAttr().type().fiName() + " not offered ("
                    + String.join(", ", offeredTypes) + ")";
        }
        throw new FabricException(Errno.ENODATA, providerName + ": " + reason);
    }

    // ------------------------------------------------------------------------------------
    // Helpers
    // ------------------------------------------------------------------------------------

    /** FI_MSG/FI_TAGGED without direction bits mean both directions; likewise FI_RMA/FI_ATOMIC. */
    static long expandDirections(long caps) {
        long x = caps;
        if ((caps & (Fi.FI_MSG | Fi.FI_TAGGED)) != 0 && (caps & MSG_DIRECTION_CAPS) == 0) {
            x |= MSG_DIRECTION_CAPS;
        }
        if ((caps & (Fi.FI_RMA | Fi.FI_ATOMIC)) != 0 && (caps & RMA_DIRECTION_CAPS) == 0) {
            x |= RMA_DIRECTION_CAPS;
        }
        return x;
    }

    /**
     * The caps of a returned info or attribute: hinted primary + offered secondary caps (all
     * offered caps, within {@code infoCaps}, when nothing is hinted), plus the offered
     * direction modifiers when none is given.
     */
    private static long narrowCaps(long infoCaps, long hintCaps, long attrCaps) {
        long secondary = attrCaps & Fi.FI_SECONDARY_CAPS;
        // FI_SOURCE_ERR turns completions of unknown senders into errors (R10): an unrequested
        // secondary cap must not change behaviour (fi_getinfo(3)), so it comes only when asked.
        if (((hintCaps != 0 ? hintCaps : infoCaps) & Fi.FI_SOURCE_ERR) == 0) {
            secondary &= ~Fi.FI_SOURCE_ERR;
        }
        long caps = hintCaps == 0
                ? (infoCaps & attrCaps & Fi.FI_PRIMARY_CAPS) | secondary
                : (hintCaps & Fi.FI_PRIMARY_CAPS) | secondary;
        if ((caps & (Fi.FI_MSG | Fi.FI_TAGGED)) != 0 && (caps & MSG_DIRECTION_CAPS) == 0) {
            caps |= attrCaps & MSG_DIRECTION_CAPS;
        }
        if ((caps & (Fi.FI_RMA | Fi.FI_ATOMIC)) != 0 && (caps & RMA_DIRECTION_CAPS) == 0) {
            caps |= attrCaps & RMA_DIRECTION_CAPS;
        }
        return caps;
    }

    /** Info-level caps: {@link #narrowCaps}, minus remote access the hinted mr_mode cannot serve. */
    private static long infoCaps(Info offered, Info hints) {
        long caps = narrowCaps(offered.caps(), hints.caps(), offered.caps());
        long provMode = offered.domainAttr().mrMode();
        long provTarget = provMode & MR_MODE_RMA_TARGET;
        if (!rmaTargetAllowed(caps) || provTarget == 0) {
            return caps;
        }
        DomainAttr hd = hints.domainAttr();
        if (hd != null) {
            long userMode = hd.mrMode();
            if (userMode == Fi.FI_MR_BASIC || (userMode & provTarget) == provTarget) {
                return caps;
            }
        }
        return caps & ~(Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE);
    }

    /** Whether these caps let peers target the endpoint with RMA or atomics. */
    private static boolean rmaTargetAllowed(long caps) {
        if ((caps & (Fi.FI_RMA | Fi.FI_ATOMIC)) == 0) {
            return false;
        }
        return (caps & (Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE)) != 0
                || (caps & RMA_DIRECTION_CAPS) == 0;
    }

    /** The MR mode bits the given caps need (RMA-target bits only when the endpoint is a target). */
    static long capMrMode(long caps, long mrMode) {
        long mode = mrMode;
        if (!rmaTargetAllowed(caps)) {
            if ((mode & (Fi.FI_MR_LOCAL | Fi.FI_MR_HMEM)) == 0) {
                return 0;
            }
            mode &= ~MR_MODE_RMA_TARGET;
        }
        return mode & ~(Fi.FI_MR_BASIC | Fi.FI_MR_SCALABLE);
    }

    static FabricAttr fabric(Info o) {
        return o.fabricAttr() == null ? NO_FABRIC : o.fabricAttr();
    }

    static DomainAttr domain(Info o) {
        return o.domainAttr() == null ? NO_DOMAIN : o.domainAttr();
    }

    static EpAttr ep(Info o) {
        return o.epAttr() == null ? NO_EP : o.epAttr();
    }

    static RxAttr rx(Info o) {
        return o.rxAttr() == null ? NO_RX : o.rxAttr();
    }

    static TxAttr tx(Info o) {
        return o.txAttr() == null ? NO_TX : o.txAttr();
    }
}
