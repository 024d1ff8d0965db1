/**
 * Live counters of a JOFI JVM in a memory-mapped counters file, as Aeron's counters file:
 * {@link io.jofi.spi.util.stats.StatsFile} (one per JVM, the writer side),
 * {@link io.jofi.spi.util.stats.StatsCounter} (one single-writer value),
 * {@link io.jofi.spi.util.stats.CounterGroup} (the counters of one object),
 * {@link io.jofi.spi.util.stats.ConnectionCounters} (an endpoint's connections made, refused and
 * lost, with their events, for every provider),
 * {@link io.jofi.spi.util.stats.StatsFileReader} and
 * {@link io.jofi.spi.util.stats.StatsDirectory} (another process's view, as {@code jofi stat});
 * the layout is {@link io.jofi.spi.util.stats.StatsFileDescriptor}; JOFI's JDK Flight Recorder
 * events are {@link io.jofi.spi.util.stats.FabricEvents}.
 *
 * <p>2.0.0: the package moved from the io.jofi.api bundle to io.jofi.util; {@code FabricEvents}
 * lost {@code ProviderChange} and {@code providerChange} (the registry records that event
 * itself, under the same name {@code io.jofi.ProviderChange}, so that the api bundle does not
 * depend on the toolkit); an owner's local and peer address ({@code CounterGroup.describeEnds}) and
 * marked scopes ({@code CounterGroup.marked}) were added with it.
 */
@Export
@Version("2.0.0")
package io.jofi.spi.util.stats;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
