package io.jofi.provider.verbs;

import io.jofi.Errno;
import io.jofi.Fi;
import io.jofi.provider.verbs.binding.VerbsConstants;

/**
 * The mapping of rdma_cm events onto EQ events (docs/VERBS.md "MSG endpoints"): connect request →
 * {@code FI_CONNREQ}; established → {@code FI_CONNECTED}; disconnected → {@code FI_SHUTDOWN}
 * (once per connection, the endpoint guards that); rejected → error {@code ECONNREFUSED} with
 * the reject data; address, route and connect errors and unreachable → error
 * {@code ETIMEDOUT}; device removal → error {@code ENODEV}. Address and route resolution are
 * steps of {@code connect}, not events the application sees. And what the operations queued
 * on an RDM connection complete with when its set-up ends with an event ({@link #setupErrno}).
 */
final class CmEvents {
    /** The event is a step of connection setup, handled by the endpoint. */
    static final int STEP = -1;
    /** The event means nothing to an endpoint (timewait exit, multicast, address change). */
    static final int IGNORED = -2;

    private CmEvents() {
    }

    /**
     * The EQ event code ({@code Fi.FI_CONNREQ}, {@code FI_CONNECTED}, {@code FI_SHUTDOWN}) of a
     * successful rdma_cm event, {@code -errno} (negative) of a failing one, {@link #STEP}, or
     * {@link #IGNORED}.
     */
    static int map(int cmEvent) {
        switch (cmEvent) {
            case VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST:
                return Fi.FI_CONNREQ;
            case VerbsConstants.RDMA_CM_EVENT_ESTABLISHED:
                return Fi.FI_CONNECTED;
            case VerbsConstants.RDMA_CM_EVENT_DISCONNECTED:
                return Fi.FI_SHUTDOWN;
            case VerbsConstants.RDMA_CM_EVENT_REJECTED:
                return -Errno.ECONNREFUSED;
            case VerbsConstants.RDMA_CM_EVENT_ADDR_ERROR:
            case VerbsConstants.RDMA_CM_EVENT_ROUTE_ERROR:
            case VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR:
            case VerbsConstants.RDMA_CM_EVENT_UNREACHABLE:
                return -Errno.ETIMEDOUT;
            case VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL:
                return -Errno.ENODEV;
            case VerbsConstants.RDMA_CM_EVENT_ADDR_RESOLVED:
            case VerbsConstants.RDMA_CM_EVENT_ROUTE_RESOLVED:
            case VerbsConstants.RDMA_CM_EVENT_CONNECT_RESPONSE:
                return STEP;
            default:
                return IGNORED;
        }
    }

    /**
     * What the sends queued on a connection whose set-up ended with rdma_cm {@code event}
     * complete with: no route to the peer's name (address or route errors) →
     * {@code EHOSTUNREACH}; the connect request unanswered (unreachable, connect error) →
     * {@code ETIMEDOUT}; the device gone → {@code ENODEV}; the peer ended it before it was up →
     * {@code ECONNREFUSED}.
     */
    static int setupErrno(int event) {
        switch (event) {
            case VerbsConstants.RDMA_CM_EVENT_ADDR_ERROR:
            case VerbsConstants.RDMA_CM_EVENT_ROUTE_ERROR:
                return Errno.EHOSTUNREACH;
            case VerbsConstants.RDMA_CM_EVENT_CONNECT_ERROR:
            case VerbsConstants.RDMA_CM_EVENT_UNREACHABLE:
                return Errno.ETIMEDOUT;
            case VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL:
                return Errno.ENODEV;
            default:
                return Errno.ECONNREFUSED;
        }
    }
}
