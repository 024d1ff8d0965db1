package io.jofi;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A fabric object: the Java side of libfabric's {@code struct fid}. Address vectors, memory
 * regions, counters, wait and poll sets, endpoints and the queues all extend it.
 *
 * <p>{@link #context()} is the very object the application passed when it opened this
 * object; every event or completion that reports this object reports it by identity.
 */
@ProviderType
public interface Fid extends AutoCloseable {
    /** What kind of object this is. */
    FidClass fidClass();

    /** The application's context given at open time (may be {@code null}). */
    Object context();

    /**
     * Closes this object ({@code fi_close}).
     *
     * @throws FabricException {@link Errno#EBUSY} while other objects are still bound to it
     *         (R9) — nothing is changed then
     */
    @Override
    void close() throws FabricException;
}
