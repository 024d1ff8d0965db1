/**
 * The shm provider: RDM endpoints between processes of one host over memory-mapped region
 * files. Private package: the bundle exports nothing and registers an
 * {@link io.jofi.spi.FabricProvider} named {@code shm}.
 */
package io.jofi.provider.shm;
