/** The service the remote-services tests export and call across containers. */
@Export
@Version("1.0.0")
package io.jofi.rsa.itests.echo;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
