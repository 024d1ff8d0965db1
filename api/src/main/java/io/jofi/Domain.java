package io.jofi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.osgi.annotation.versioning.ProviderType;

/** A domain: one access point to the fabric, and the owner of resources ({@code fi_domain}). */
@ProviderType
public interface Domain extends Fid {
    /** {@code fi_endpoint}: any {@code Info} of this provider and fabric. */
    Endpoint endpoint(Info info, Object context) throws FabricException;

    /** {@code fi_cq_open} (fi_cq(3)). */
    CompletionQueue openCq(CqAttr attr, Object context) throws FabricException;

    /** {@code fi_cntr_open}. */
    Counter openCounter(CounterAttr attr, Object context) throws FabricException;

    /** {@code fi_av_open}. */
    AddressVector openAv(AvAttr attr, Object context) throws FabricException;

    /** {@code fi_poll_open}. */
    PollSet openPollSet(PollAttr attr) throws FabricException;

    /**
     * {@code fi_mr_reg}: registers {@code [position, limit)} of {@code buf}.
     *
     * @param access       {@code Fi.FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE}
     * @param offset       the offset peers use for the first byte (with an offset-based {@code mrMode})
     * @param requestedKey the key asked for (ignored with {@code FI_MR_PROV_KEY})
     */
    MemoryRegion register(ByteBuffer buf, long access, long offset, long requestedKey,
                          long flags, Object context) throws FabricException;

    /**
     * Binds an event queue with {@code Fi.FI_REG_MR}: registrations then complete with
     * {@code FI_MR_COMPLETE} events whose {@code fid()} is the region.
     */
    void bind(EventQueue eq, long flags) throws FabricException;

    /**
     * {@code fi_query_atomic}: whether this domain's endpoints serve {@code op} on
     * {@code datatype} for the kind of call {@code flags} names (0 {@code fi_atomic},
     * {@code Fi.FI_FETCH_ATOMIC}, {@code Fi.FI_COMPARE_ATOMIC}), and how many elements one call
     * may carry.
     *
     * @return the largest count (at least 1), or {@code -EOPNOTSUPP} for a pair not served,
     *         {@code -EBADFLAGS} for other flags. The default serves none.
     */
    default int queryAtomic(int datatype, int op, long flags) {
        return -Errno.EOPNOTSUPP;
    }

    /**
     * Memory for one-sided RMA that peers in other processes can reach: a direct buffer of
     * {@code size} bytes, zeroed, position 0, limit {@code size}. A provider that shares memory
     * between processes (shm) backs it with a shared mapping, so that a later {@link #register}
     * of this very buffer (any position and limit) lets peers write, read and atomically update
     * it directly, without this side's progress. Elsewhere (the default) it is an ordinary
     * {@link ByteBuffer#allocateDirect direct buffer}, which every provider can register.
     * The memory is released when the buffer is garbage collected or the domain is closed,
     * whichever comes first; do not use it after closing the domain.
     *
     * @param size bytes, {@code 1 .. Integer.MAX_VALUE}
     * @throws FabricException {@code EINVAL} for a size out of range; {@code ENOMEM} when the
     *         memory cannot be had
     */
    default ByteBuffer allocateBuffer(long size) throws FabricException {
        if (size <= 0 || size > Integer.MAX_VALUE) {
            throw new FabricException(Errno.EINVAL, "allocateBuffer: size " + size + " is outside 1.." + Integer.MAX_VALUE);
        }
        try {
            return ByteBuffer.allocateDirect((int) size);
        } catch (OutOfMemoryError e) {
            throw new FabricException(Errno.ENOMEM, "allocateBuffer: cannot allocate " + size + " bytes of direct memory");
        }
    }

    /**
     * Maps {@code [offset, offset + size)} of an existing {@code file} read-write as a buffer
     * for RMA, so that {@code FI_COMMIT_COMPLETE} (R11) can make remote writes into it durable:
     * a provider that supports it (shm) forces the mapping to storage before completing such
     * an operation, after a later {@link #register} of this very buffer. A provider that
     * shares memory between processes also lets peers reach the mapped file directly, as for
     * {@link #allocateBuffer}. The default maps the file for this process only (the provider
     * knows nothing of the file and its peers reach the buffer through this side's progress).
     * The file is not grown: {@code offset + size} must lie within it.
     *
     * @param file   an existing regular file this process may read and write
     * @param offset the first byte of the file to map, {@code >= 0}
     * @param size   bytes, {@code 1 .. Integer.MAX_VALUE}, ending within the file
     * @throws FabricException {@code EINVAL} for a null file, a range out of bounds or beyond
     *         the file's end; {@code ENOENT} when the file does not exist; {@code EIO} when
     *         it cannot be opened or mapped (the message says why)
     */
    default ByteBuffer mapFile(Path file, long offset, long size) throws FabricException {
        if (file == null) {
            throw new FabricException(Errno.EINVAL, "mapFile: the file is null");
        }
        if (offset < 0 || size <= 0 || size > Integer.MAX_VALUE) {
            throw new FabricException(Errno.EINVAL, "mapFile: offset " + offset + " / size " + size
                    + " out of range (offset >= 0, size 1.." + Integer.MAX_VALUE + ")");
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long fileSize = ch.size();
            if (offset > fileSize || size > fileSize - offset) {
                throw new FabricException(Errno.EINVAL, "mapFile: [" + offset + ", " + (offset + size) + ") lies beyond the end of "
                        + file + " (" + fileSize + " bytes); the file is not grown");
            }
            return ch.map(FileChannel.MapMode.READ_WRITE, offset, size);
        } catch (NoSuchFileException e) {
            throw new FabricException(Errno.ENOENT, "mapFile: " + file + " does not exist", e);
        } catch (IOException | UnsupportedOperationException e) {
            throw new FabricException(Errno.EIO, "mapFile: cannot map " + file + ": " + e.getMessage(), e);
        }
    }
}
