package io.jofi;

import java.nio.ByteBuffer;
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
}
