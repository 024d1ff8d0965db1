package io.jofi.provider.shm;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The shm provider's configuration: a DS component property type (PID
 * {@code io.jofi.provider.shm}), read in a plain JVM from the system properties
 * {@code jofi.shm.<name>} (see {@link ShmProvider#fromSystemProperties}).
 */
@ObjectClassDefinition(name = "JOFI shm provider", pid = "io.jofi.provider.shm")
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
    /** Default of {@link #cmaThreshold()}: 32 KiB. */
    int DEFAULT_CMA_THRESHOLD = 32 << 10;

    /** Where region files (and doorbell sockets) live: a tmpfs, usually. */
    @AttributeDefinition(description = "directory of the region files (a tmpfs such as /dev/shm)")
    String directory() default DEFAULT_DIRECTORY;

    /** Bytes of the MPSC command ring in each endpoint's region (rounded to a power of two). */
    @AttributeDefinition(description = "bytes of the command ring of each endpoint (power of two)")
    int ringSize() default DEFAULT_RING_SIZE;

    /** Bytes of one bounce-buffer slot in each endpoint's region. */
    @AttributeDefinition(description = "bytes of one bounce-buffer slot")
    int bounceSlotSize() default DEFAULT_BOUNCE_SLOT_SIZE;

    /**
     * Bounce-buffer slots in each endpoint's region: fragments longer than the inline
     * threshold travel in a slot (taken by the sender, freed by the receiver) while one is
     * free, inline in the ring otherwise; 0 sends everything inline.
     */
    @AttributeDefinition(description = "bounce-buffer slots per endpoint")
    int bounceSlotCount() default DEFAULT_BOUNCE_SLOT_COUNT;

    /**
     * Largest payload carried inside one ring record; longer messages travel in fragments of
     * a bounce slot's size (while slots are free) or of this size inline.
     */
    @AttributeDefinition(description = "largest payload of one ring record (fragment size)")
    int inlineThreshold() default DEFAULT_INLINE_THRESHOLD;

    /**
     * Budget of unexpected messages per endpoint, in bytes: each buffered message counts its
     * payload plus a fixed overhead of 256 bytes (so 0-byte messages are bounded too). A
     * message that does not fit stays in the ring (the first one always fits); the ring fills
     * and senders are pushed back until receives take buffered messages.
     */
    @AttributeDefinition(description = "bytes of unexpected messages buffered per endpoint (payload + 256 per message)")
    int unexpectedBytes() default DEFAULT_UNEXPECTED_BYTES;

    /**
     * Messages of at least this many bytes whose buffers are all direct travel by
     * cross-memory attach (the receiver reads them with {@code process_vm_readv} straight from
     * the sender's buffers: one copy) to peers where the CMA probe succeeded; 0 disables CMA.
     */
    @AttributeDefinition(description = "smallest message sent by cross-memory attach (process_vm_readv); 0 disables it")
    int cmaThreshold() default DEFAULT_CMA_THRESHOLD;
}
