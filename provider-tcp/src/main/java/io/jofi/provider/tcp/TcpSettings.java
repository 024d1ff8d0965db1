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

    /** Default of {@link #connectionSetupTimeout()}, milliseconds. */
    int DEFAULT_CONNECTION_SETUP_TIMEOUT = 5_000;
    /** Default of {@link #keepAliveIdle()}, seconds (libfabric's tcp provider: 5). */
    int DEFAULT_KEEPALIVE_IDLE = 5;
    /** Default of {@link #keepAliveInterval()}, seconds (libfabric's tcp provider: 2). */
    int DEFAULT_KEEPALIVE_INTERVAL = 2;
    /** Default of {@link #keepAliveCount()} (libfabric's tcp provider: 2). */
    int DEFAULT_KEEPALIVE_COUNT = 2;
    /** Default of {@link #progressTimeout()}, milliseconds. */
    int DEFAULT_PROGRESS_TIMEOUT = 60_000;

    /**
     * Milliseconds an accepted socket may take to deliver its whole connection request (MSG
     * request or RDM hello); after that it is closed, so half-open and slowloris connections
     * cannot hold descriptors. 0 turns the deadline off.
     */
    @AttributeDefinition(description = "ms an accepted socket may take to send its connection request; 0: no limit")
    int connectionSetupTimeout() default DEFAULT_CONNECTION_SETUP_TIMEOUT;

    /**
     * TCP keepalive on every connection: seconds of idleness before the first probe
     * ({@code TCP_KEEPIDLE}); 0 turns keepalive off. Finds a dead host or a broken path on an
     * idle connection; a stopped process whose kernel still answers is found by
     * {@link #progressTimeout()}.
     */
    @AttributeDefinition(description = "TCP keepalive idle time in s before the first probe; 0: keepalive off")
    int keepAliveIdle() default DEFAULT_KEEPALIVE_IDLE;

    /** Seconds between keepalive probes ({@code TCP_KEEPINTVL}). */
    @AttributeDefinition(description = "TCP keepalive interval between probes in s")
    int keepAliveInterval() default DEFAULT_KEEPALIVE_INTERVAL;

    /** Unanswered keepalive probes before the kernel resets the connection ({@code TCP_KEEPCNT}). */
    @AttributeDefinition(description = "TCP keepalive probes before the connection is reset")
    int keepAliveCount() default DEFAULT_KEEPALIVE_COUNT;

    /**
     * Milliseconds a connection with operations waiting for its peer (sends not yet written,
     * acknowledgements, read or atomic responses, a message arriving in parts) may move no byte
     * in either direction before it is failed with {@code ETIMEDOUT}: the peer is stopped,
     * hung, or unreachable with data outstanding. 0 turns it off (libfabric's behaviour: wait
     * for ever).
     */
    @AttributeDefinition(description = "ms without progress on a connection with pending operations before ETIMEDOUT; 0: off")
    int progressTimeout() default DEFAULT_PROGRESS_TIMEOUT;

    /** How many unexpected messages one connection buffers before it stops reading. */
    @AttributeDefinition(description = "unexpected messages buffered per connection before reading stops")
    int unexpectedMessages() default DEFAULT_UNEXPECTED_MESSAGES;
}
