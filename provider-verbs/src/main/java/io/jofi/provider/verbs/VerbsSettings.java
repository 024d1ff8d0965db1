package io.jofi.provider.verbs;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The verbs provider's configuration: a DS component property type (PID
 * {@code io.jofi.provider.verbs}), read in a plain JVM from the system properties
 * {@code jofi.verbs.<name>} (see {@link VerbsProvider#fromSystemProperties}).
 *
 * <p>A change applies without restarting the provider ({@link VerbsProvider#modified}): each
 * setting is read when the object it shapes is made (a domain or an endpoint, as its
 * description says); open objects keep the values they were made with. The OCD's name and
 * description are in {@code OSGI-INF/l10n/verbs.properties}.
 */
@ObjectClassDefinition(name = "%verbs.name", description = "%verbs.description", pid = "io.jofi.provider.verbs",
        localization = "OSGI-INF/l10n/verbs")
@interface VerbsSettings {
    /** Default of {@link #queueSize()}. */
    int DEFAULT_QUEUE_SIZE = 256;
    /** Default of {@link #pollBatch()}. */
    int DEFAULT_POLL_BATCH = 32;
    /** Default of {@link #inlineSize()}. */
    int DEFAULT_INLINE_SIZE = 64;

    /** Only offer this device (e.g. {@code rxe0}); empty = every device with an active port. */
    @AttributeDefinition(description = "Only offer this RDMA device, e.g. rxe0; empty: every device with an active port. Applies to later getInfo calls and new domains (the devices are scanned again).")
    String device() default "";

    /** Work requests per send and per receive queue of an endpoint (capped by the device's max_qp_wr). */
    @AttributeDefinition(description = "Work requests per send and per receive queue of an endpoint (1..65536, capped by the device's max_qp_wr). Applies to new endpoints.")
    int queueSize() default DEFAULT_QUEUE_SIZE;

    /** Work completions read from the native CQ per poll_cq call (at most 64: one call amortises over many). */
    @AttributeDefinition(description = "Work completions read from the native CQ per poll_cq call (1..64). Applies to new endpoints.")
    int pollBatch() default DEFAULT_POLL_BATCH;

    /** Bytes a send carries inline in its work request (the inject size; a bounce buffer beyond what the device allows). */
    @AttributeDefinition(description = "Bytes a send carries inline in its work request, the inject size (0..1024). Applies to new endpoints and later getInfo calls.")
    int inlineSize() default DEFAULT_INLINE_SIZE;

    /**
     * iWARP only: confirm each RDMA write with a zero-length read of its target before it
     * completes (true, the default: completion means placed, and a write the target refused
     * completes with an error). false completes a write once the local transport took it —
     * faster, but a refused write is seen only as the connection ending. soft-iWARP (Linux 6.1)
     * fails a long run of such reads with {@code IBV_WC_GENERAL_ERR} (README "Limits").
     */
    @AttributeDefinition(description = "iWARP only: confirm each RDMA write by a zero-length read of its target before it completes; false completes once the local transport took it. Applies to new endpoints.")
    boolean iwarpWriteConfirm() default true;
}
