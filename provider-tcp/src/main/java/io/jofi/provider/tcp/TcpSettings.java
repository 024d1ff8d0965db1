package io.jofi.provider.tcp;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The tcp provider's configuration: a DS component property type (PID {@code io.jofi.provider.tcp}),
 * read in a plain JVM from the system properties {@code jofi.tcp.<name>} (see
 * {@link TcpProvider#fromSystemProperties}).
 */
@ObjectClassDefinition(name = "JOFI tcp provider", pid = "io.jofi.provider.tcp")
@interface TcpSettings {
    /** Default of {@link #unexpectedBytes()}. */
    int DEFAULT_UNEXPECTED_BYTES = 4 << 20;
    /** Default of {@link #unexpectedMessages()}. */
    int DEFAULT_UNEXPECTED_MESSAGES = 256;

    /**
     * Bytes of unexpected messages (arrived before a receive was posted) one connection
     * buffers; beyond that it stops reading from the peer (back-pressure) until receives are posted.
     */
    @AttributeDefinition(description = "bytes of unexpected messages buffered per connection before reading stops")
    int unexpectedBytes() default DEFAULT_UNEXPECTED_BYTES;

    /** How many unexpected messages one connection buffers before it stops reading. */
    @AttributeDefinition(description = "unexpected messages buffered per connection before reading stops")
    int unexpectedMessages() default DEFAULT_UNEXPECTED_MESSAGES;
}
