/**
 * The remote-services example: {@link io.jofi.examples.rsa.KeyValueStore}, a small key-value
 * service that {@link io.jofi.examples.rsa.KeyValueStoreComponent} exports from one container
 * over JOFI ({@code service.exported.configs=io.jofi}), and
 * {@link io.jofi.examples.rsa.KeyValueClientComponent}, which calls it from another container
 * through the proxy Apache Aries RSA imports. Both components start only when configured, so
 * one bundle serves both roles.
 */
@Export
@Version("1.0.0")
package io.jofi.examples.rsa;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
