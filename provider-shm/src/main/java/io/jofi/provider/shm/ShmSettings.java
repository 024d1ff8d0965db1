package io.jofi.provider.shm;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The shm provider's configuration: a DS component property type (PID
 * {@code io.jofi.provider.shm}), read in a plain JVM from the system properties
 * {@code jofi.shm.<name>} (see {@link ShmProvider#fromSystemProperties}).
 *
 * <p>A change applies without restarting the provider ({@link ShmProvider#modified}): each
 * setting is read when the object it shapes is made (a domain or an endpoint, as its
 * description says); open objects keep the values they were made with. The OCD's name and
 * description are in {@code OSGI-INF/l10n/shm.properties}.
 */
@ObjectClassDefinition(name = "%shm.name", description = "%shm.description", pid = "io.jofi.provider.shm",
        localization = "OSGI-INF/l10n/shm")
@interface ShmSettings {
    /** Default of {@link #directory()}. */
    String DEFAULT_DIRECTORY = "/dev/shm";
    /** Default of {@link #ringSize()}: 1 MiB of ring per endpoint. */
    int DEFAULT_RING_SIZE = 1 << 20;
    /** Default of {@link #bounceSlotSize()}. */
    int DEFAULT_BOUNCE_SLOT_SIZE = 64 << 10;
    /** Default of {@link #bounceSlotCount()}. */
    int DEFAULT_BOUNCE_SLOT_COUNT = 16;
    /** Default of {@link #inlineThreshold()}. */
    int DEFAULT_INLINE_THRESHOLD = 16 << 10;
    /** Default of {@link #unexpectedBytes()}. */
    int DEFAULT_UNEXPECTED_BYTES = 64 << 20;
    /**
     * Default of {@link #cmaThreshold()}: 32 KiB. Measured against a bounce slot at 32–64 KiB
     * (benchmarks/results/shm-cma-vs-bounce.md): the slot streams faster, but one 64 KiB
     * ping-pong run in three sits at ~30 µs a message for its whole length (CMA: 7.3 µs every
     * run), for a reason not yet found — so CMA stays from 32 KiB.
     */
    int DEFAULT_CMA_THRESHOLD = 32 << 10;
    /** Default of {@link #peerCheckMillis()}: 500 ms. */
    int DEFAULT_PEER_CHECK_MILLIS = 500;
    /** Default of {@link #progressTimeoutMillis()}: 60 s. */
    int DEFAULT_PROGRESS_TIMEOUT_MILLIS = 60_000;

    /** Where region files (and doorbell sockets) live: a tmpfs, usually. */
    @AttributeDefinition(description = "Directory of the region files and doorbell sockets, a tmpfs such as /dev/shm; peers must use the same. Applies to new domains.")
    String directory() default DEFAULT_DIRECTORY;

    /** Bytes of the MPSC command ring in each endpoint's region (rounded to a power of two). */
    @AttributeDefinition(description = "Bytes of the command ring in each endpoint's region, rounded to a power of two (64 KiB..1 GiB). Applies to new endpoints.")
    int ringSize() default DEFAULT_RING_SIZE;

    /** Bytes of one bounce-buffer slot in each endpoint's region. */
    @AttributeDefinition(description = "Bytes of one bounce-buffer slot in each endpoint's region (64 B..16 MiB, a multiple of 64). Applies to new endpoints.")
    int bounceSlotSize() default DEFAULT_BOUNCE_SLOT_SIZE;

    /**
     * Bounce-buffer slots in each endpoint's region: fragments longer than the inline
     * threshold travel in a slot (taken by the sender, freed by the receiver) while one is
     * free, inline in the ring otherwise; 0 sends everything inline.
     */
    @AttributeDefinition(description = "Bounce-buffer slots in each endpoint's region; 0 sends every fragment inline in the ring. Applies to new endpoints.")
    int bounceSlotCount() default DEFAULT_BOUNCE_SLOT_COUNT;

    /**
     * Largest payload carried inside one ring record; longer messages travel in fragments of
     * a bounce slot's size (while slots are free) or of this size inline.
     */
    @AttributeDefinition(description = "Largest payload of one ring record: longer messages travel in fragments (256 B..a quarter of the ring). Applies to new endpoints.")
    int inlineThreshold() default DEFAULT_INLINE_THRESHOLD;

    /**
     * Budget of unexpected messages per endpoint, in bytes: each buffered message counts its
     * payload plus a fixed overhead of 256 bytes (so 0-byte messages are bounded too). A
     * message that does not fit stays in the ring (the first one always fits); the ring fills
     * and senders are pushed back until receives take buffered messages.
     */
    @AttributeDefinition(description = "Bytes of unexpected messages one endpoint buffers (each counts its payload plus 256) before senders are pushed back. Applies to new endpoints.")
    int unexpectedBytes() default DEFAULT_UNEXPECTED_BYTES;

    /**
     * Messages of at least this many bytes whose buffers are all direct travel by
     * cross-memory attach (the receiver reads them with {@code process_vm_readv} straight from
     * the sender's buffers: one copy) to peers where the CMA probe succeeded; 0 disables CMA.
     */
    @AttributeDefinition(description = "Smallest message sent by cross-memory attach (the receiver reads it with process_vm_readv: one copy); 0 disables CMA. Applies to new endpoints.")
    int cmaThreshold() default DEFAULT_CMA_THRESHOLD;

    /**
     * How often (milliseconds) an endpoint checks every peer whose region it mapped for life
     * (pid and start time of the region's owner, region state) while nothing is pending
     * towards it — so that a peer that died while idle is found, its files removed and later
     * operations towards it fail. Peers with operations pending are checked every 50 ms.
     * A check reads {@code /proc/<pid>/stat}; at least 10.
     */
    @AttributeDefinition(description = "Milliseconds between life checks (pid and start time) of idle peers, at least 10. Applies to new endpoints.")
    int peerCheckMillis() default DEFAULT_PEER_CHECK_MILLIS;

    /**
     * How long (milliseconds) operations pending towards a live peer may make no progress
     * before they fail with {@code ETIMEDOUT} and the peer is treated as failed: no progress
     * means the peer consumed none of the ring records that were there at the previous look
     * and sent us nothing (a stopped or hung process; also a receiver that holds its ring
     * full for that long). Operations waiting for the peer's application (a receive to match
     * a message) do not count once the peer consumed the record — unless the peer's process
     * stays stopped ({@code SIGSTOP}: {@code /proc/<pid>/stat} state T) for that long, which
     * fails them too. 0 disables the bound.
     */
    @AttributeDefinition(description = "Milliseconds operations towards a live peer may make no progress before they fail with ETIMEDOUT; 0: never. Applies to new endpoints.")
    int progressTimeoutMillis() default DEFAULT_PROGRESS_TIMEOUT_MILLIS;
}
