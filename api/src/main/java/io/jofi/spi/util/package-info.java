/**
 * Shared provider building blocks, as libfabric's util layer: the completion queue, event
 * queue, wait objects, wait and poll sets, counters, address vectors, memory-region keys and
 * the progress engine. Every provider uses these; none re-implements them.
 */
@Export
@Version("1.0.0")
package io.jofi.spi.util;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
