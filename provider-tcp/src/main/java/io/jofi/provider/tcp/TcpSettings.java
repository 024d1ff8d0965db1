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

    /**
     * {@code SO_SNDBUF} of every connection, bytes; 0 (default) leaves the kernel's default and
     * its send-buffer auto-tuning (Linux: {@code net.ipv4.tcp_wmem}), as libfabric's tcp
     * provider does. A fixed size turns auto-tuning off for that socket.
     */
    @AttributeDefinition(description = "SO_SNDBUF of every connection in bytes; 0: the kernel's auto-tuning")
    int socketSendBuffer() default 0;

    /**
     * {@code SO_RCVBUF} of every connection (set on listening sockets before they accept and on
     * connecting sockets before they connect, so that the window scale covers it), bytes; 0
     * (default) leaves the kernel's auto-tuning ({@code net.ipv4.tcp_rmem}).
     */
    @AttributeDefinition(description = "SO_RCVBUF of every connection in bytes; 0: the kernel's auto-tuning")
    int socketReceiveBuffer() default 0;

    /** How many unexpected messages one connection buffers before it stops reading. */
    @AttributeDefinition(description = "unexpected messages buffered per connection before reading stops")
    int unexpectedMessages() default DEFAULT_UNEXPECTED_MESSAGES;
}
