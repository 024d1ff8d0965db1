/**
 * The OSGi example: {@link io.jofi.examples.osgi.FabricChoiceComponent}, a Declarative
 * Services component that takes the {@code io.jofi.Fabrics} service by {@code @Reference} and
 * follows providers as they come and go, and the {@link io.jofi.examples.osgi.FabricChoice}
 * service it offers (exported so that other bundles, and the example's test, can ask it).
 */
@Export
@Version("1.0.0")
package io.jofi.examples.osgi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
