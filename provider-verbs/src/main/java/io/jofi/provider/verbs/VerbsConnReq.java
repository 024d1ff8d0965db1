package io.jofi.provider.verbs;

import io.jofi.ConnReq;

/**
 * The handle of an {@code FI_CONNREQ} event ({@code info.handle()}): the rdma_cm id of the
 * connect request, owned by the passive endpoint until an endpoint takes it ({@code accept})
 * or it is rejected.
 */
final class VerbsConnReq implements ConnReq {
    final VerbsPassiveEndpoint pep;
    final long id;
    /** Set once an endpoint or a reject took the id (guarded by the passive endpoint). */
    boolean taken;

    VerbsConnReq(VerbsPassiveEndpoint pep, long id) {
        this.pep = pep;
        this.id = id;
    }

    @Override
    public String toString() {
        return "verbs connection request 0x" + Long.toHexString(id);
    }
}
