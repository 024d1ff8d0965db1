package io.jofi.provider.verbs;

/** An owner of rdma_cm ids (a passive or an active endpoint) that the CM thread hands their events to. */
interface CmHandler {
    /**
     * One rdma_cm event, already acknowledged (its memory is gone: everything needed was copied).
     *
     * @param id          the {@code struct rdma_cm_id *} the event is for (for a connect request: the new id)
     * @param event       {@code RDMA_CM_EVENT_*}
     * @param status      the event's status (an errno or a transport status; 0 on success)
     * @param privateData the connection data the peer sent (connect request, established on the
     *                    active side, rejected), unframed; empty when none
     */
    void onCmEvent(long id, int event, int status, byte[] privateData);
}
