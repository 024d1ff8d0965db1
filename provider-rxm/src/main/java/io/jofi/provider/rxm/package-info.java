/**
 * The ofi_rxm provider: an RDM endpoint built over any core provider's MSG endpoints, speaking
 * the wire of libfabric 1.17's {@code ofi_rxm} layer (its connection data, its packet header,
 * eager, segmented and rendezvous messages, its rules for crossed connections; every byte layout
 * is in {@link io.jofi.provider.rxm.RxmWireDescriptor}). Private package: the bundle exports
 * nothing and registers an {@link io.jofi.spi.FabricProvider} named {@code ofi_rxm}, offered as
 * {@code <core>;ofi_rxm} (docs/RXM.md).
 */
package io.jofi.provider.rxm;
