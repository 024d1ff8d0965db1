package io.jofi.provider.verbs;

/** An owner of rdma_cm ids (a passive or an active endpoint) that the CM thread hands their events to. */
interface CmHandler {
    /**
     * One rdma_cm event, already acknowledged (its memory is gone: everything needed was copied).
     *
     * @param id          the {@code struct rdma_cm_id *} the event is for (for a connect request: the new id)
     * @param token       the id's token ({@link CmChannel#tokenOf}) when the event was read (for a connect
     *                    request: the listener's). An id's memory is reused by the next id created once it
     *                    is destroyed, and an event read before the destroy reaches its handler after it:
     *                    a handler that owns several ids tells a stale event from one of the new id by
     *                    the token, which is never reused
     * @param event       {@code RDMA_CM_EVENT_*}
     * @param status      the event's status (an errno or a transport status; 0 on success)
     * @param privateData the connection data the peer sent (connect request, established on the
     *                    active side, rejected), unframed; empty when none
     */
    void onCmEvent(long id, long token, int event, int status, byte[] privateData);
}
