package io.jofi.provider.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.provider.verbs.binding.VerbsConstants;
import org.junit.jupiter.api.Test;

/** The event and error mappings (docs/VERBS.md "MSG endpoints"), as the endpoint applies them. */
class MappingTest {
    @Test
    void cmEventsMapOntoEqEventsAndErrors() {
        assertEquals(Fi.FI_CONNREQ, CmEvents.map(VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST));
        assertEquals(Fi.FI_CONNECTED, CmEvents.map(VerbsConstants.RDMA_CM_EVENT_ESTABLISHED));
        assertEquals(Fi.FI_SHUTDOWN, CmEvents.map(VerbsConstants.RDMA_CM_EVENT_DISCONNECTED));
        assertEquals(-Errno.ECONNREFUSED, CmEvents.map(VerbsConstants.RDMA_CM_EVENT_REJECTED));
        for (int e : new int[] {VerbsConstants.RDMA_CM_EVENT_ADDR_ERROR, VerbsConstants.RDMA_CM_EVENT_ROUTE_ERROR,
                VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR, VerbsConstants.RDMA_CM_EVENT_UNREACHABLE}) {
            assertEquals(-Errno.ETIMEDOUT, CmEvents.map(e), "event " + e);
        }
        assertEquals(-Errno.ENODEV, CmEvents.map(VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL));
        assertEquals(CmEvents.STEP, CmEvents.map(VerbsConstants.RDMA_CM_EVENT_ADDR_RESOLVED));
        assertEquals(CmEvents.STEP, CmEvents.map(VerbsConstants.RDMA_CM_EVENT_ROUTE_RESOLVED));
        assertEquals(CmEvents.IGNORED, CmEvents.map(VerbsConstants.RDMA_CM_EVENT_TIMEWAIT_EXIT));
    }

    /** RDM: what the sends queued on a failed connection set-up complete with, per rdma_cm event. */
    @Test
    void rdmSetUpFailuresMapOntoErrnos() {
        assertEquals(Errno.ECONNREFUSED, CmEvents.setupErrno(VerbsConstants.RDMA_CM_EVENT_REJECTED));
        assertEquals(Errno.ECONNREFUSED, CmEvents.setupErrno(VerbsConstants.RDMA_CM_EVENT_DISCONNECTED));
        assertEquals(Errno.EHOSTUNREACH, CmEvents.setupErrno(VerbsConstants.RDMA_CM_EVENT_ADDR_ERROR));
        assertEquals(Errno.EHOSTUNREACH, CmEvents.setupErrno(VerbsConstants.RDMA_CM_EVENT_ROUTE_ERROR));
        assertEquals(Errno.ETIMEDOUT, CmEvents.setupErrno(VerbsConstants.RDMA_CM_EVENT_UNREACHABLE));
        assertEquals(Errno.ETIMEDOUT, CmEvents.setupErrno(VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR));
        assertEquals(Errno.ENODEV, CmEvents.setupErrno(VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL));
    }

    @Test
    void workCompletionStatusesMapOntoErrnos() {
        assertEquals(0, WcErrors.errno(VerbsConstants.IBV_WC_SUCCESS));
        assertEquals(Errno.ECANCELED, WcErrors.errno(VerbsConstants.IBV_WC_WR_FLUSH_ERR));
        assertEquals(Errno.ETRUNC, WcErrors.errno(VerbsConstants.IBV_WC_LOC_LEN_ERR));
        assertEquals(Errno.EIO, WcErrors.errno(VerbsConstants.IBV_WC_REM_ACCESS_ERR));
        assertEquals(Errno.EIO, WcErrors.errno(VerbsConstants.IBV_WC_RETRY_EXC_ERR));
    }

    /** A full queue is -EAGAIN (retry after progress); any other refusal is its own errno, never retried for ever. */
    @Test
    void refusedPostsMapOntoErrnos() {
        assertEquals(-Errno.EAGAIN, WcErrors.postRefused(Errno.ENOMEM));
        assertEquals(-Errno.EAGAIN, WcErrors.postRefused(Errno.EAGAIN));
        assertEquals(-Errno.EINVAL, WcErrors.postRefused(Errno.EINVAL));
        assertEquals(-Errno.ENOTCONN, WcErrors.postRefused(Errno.ENOTCONN));
    }

    @Test
    void strerrorNamesTheStatus() {
        String s = WcErrors.describe(VerbsConstants.IBV_WC_REM_ACCESS_ERR, "remote access error");
        assertTrue(s.contains("remote access error") && s.contains("10"), s);
        assertTrue(WcErrors.describe(12, null).contains("status 12"));
    }
}
