/**
 * The provider SPI: what a provider bundle implements and registers.
 *
 * <p>1.1.0: {@code LayeredProvider}, a provider layered over the core providers the registry
 * holds ({@code tcp;ofi_rxm}).
 */
@Export
@Version("1.1.0")
package io.jofi.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
