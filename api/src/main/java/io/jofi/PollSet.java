package io.jofi;

import org.osgi.annotation.versioning.ProviderType;

/** A poll set ({@code fi_poll}): asks many CQs, counters and EQs at once which have events. */
@ProviderType
public interface PollSet extends Fid {
    /** {@code fi_poll_add}: adds a CQ, counter or EQ; {@link Errno#EINVAL} for other objects. */
    void add(Fid fid) throws FabricException;

    /** {@code fi_poll_del}; {@link Errno#ENOENT} when {@code fid} is not a member. */
    void remove(Fid fid) throws FabricException;

    /**
     * {@code fi_poll}: drives progress, then fills {@code contexts} with the contexts of the
     * members that have events.
     *
     * @return how many were filled (0 when none has), or a negative errno
     */
    int poll(Object[] contexts);
}
