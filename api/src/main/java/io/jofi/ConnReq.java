package io.jofi;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The opaque handle of a connection request ({@code fid_t handle} of libfabric): carried by
 * {@code Info.handle()} of a {@code FI_CONNREQ} event, given back to {@code accept} (through
 * the {@code Info} an endpoint is opened with) or {@link PassiveEndpoint#reject}. Not a
 * {@link Fid}.
 */
@ProviderType
public interface ConnReq {
}
