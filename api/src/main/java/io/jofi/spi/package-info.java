/**
 * The provider SPI: what a provider bundle implements and registers.
 */
@Export
@Version("1.0.0")
package io.jofi.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
