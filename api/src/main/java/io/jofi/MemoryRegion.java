package io.jofi;

import java.nio.ByteBuffer;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A registered memory region ({@code fi_mr}). A peer is sent the pair
 * {@code (address(), key())} and targets {@code address + offset} with that key.
 */
@ProviderType
public interface MemoryRegion extends Fid {
    /** The remote key peers use ({@code fi_mr_key}). */
    long key();

    /** The region's virtual address where the hardware needs one (verbs), else 0. */
    long address();

    /** The local descriptor ({@code fi_mr_desc}). */
    Object desc();

    /** The registered buffer. */
    ByteBuffer buffer();
}
