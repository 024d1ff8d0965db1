/**
 * An RDM endpoint built over any provider's MSG endpoints, speaking the wire of libfabric
 * 1.17's {@code ofi_rxm} layer: its connection data, its packet header (control header plus
 * operation header), eager messages, segmented messages (received), rendezvous by RMA read
 * and by RMA write, and its rules for crossed connections. Every byte layout is in {@link io.jofi.spi.util.rxm.RxmWireDescriptor}.
 *
 * <p>1.0.0: {@code RxmWireDescriptor}, {@code RxmConnectData}, {@code RxmPacketHeader},
 * {@code RxmSettings}, {@code RxmEndpoint}, {@code PeerRemovalSource}.
 * <p>2.0.0: {@code PeerRemovalSource} moved to {@code io.jofi.spi.util} (every util address
 * vector is one), so that a core provider's AV does not name the rxm layer.
 * <p>2.1.0: {@code RxmEndpoint.typedAtomicCount} (atomics with a datatype and a count).
 * <p>2.2.0: {@code RxmEndpoint.stopProgress} (the first step of a departure over one core).
 */
@Export
@Version("2.2.0")
package io.jofi.spi.util.rxm;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
