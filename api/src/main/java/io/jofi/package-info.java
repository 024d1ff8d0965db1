/**
 * JOFI's user API: the Java spelling of libfabric's fabric, domain, endpoint, completion
 * queue and event queue calls. Control-path calls throw {@link io.jofi.FabricException};
 * data-path calls return {@code >= 0} or {@code -Errno.X} and allocate nothing.
 */
@Export
@Version("1.1.0")
package io.jofi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
