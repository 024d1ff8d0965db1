/**
 * JOFI's user API: the Java spelling of libfabric's fabric, domain, endpoint, completion
 * queue and event queue calls. Control-path calls throw {@link io.jofi.FabricException};
 * data-path calls return {@code >= 0} or {@code -Errno.X} and allocate nothing.
 *
 * <p>1.1.0: {@code Domain.allocateBuffer} and {@code Domain.mapFile} added; {@code Fi}'s
 * {@code modeToString}, {@code mrModeToString}, {@code opFlagsToString} and
 * {@code orderToString} added.
 * <p>2.0.0: {@code RmaMsg} and {@code TaggedMsg} return their own type from the inherited
 * builder calls ({@code addr}, {@code buffer}, {@code context}, {@code data}, {@code iov},
 * {@code iovCount}); a subclass written against 1.x that overrides one of them returning
 * {@code Msg} no longer compiles, so the change is MAJOR (bnd baseline against 1.0.0).
 * <p>2.1.0: {@code AddressVector.insert(byte[])}, the one-peer insert returning the
 * {@code fi_addr_t}.
 */
@Export
@Version("2.2.0")
package io.jofi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
