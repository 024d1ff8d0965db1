package io.jofi.provider.tcp;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The tcp provider's configuration: a DS component property type (PID {@code io.jofi.provider.tcp}),
 * read in a plain JVM from the system properties {@code jofi.tcp.<name>} (see
 * {@link TcpProvider#fromSystemProperties}).
 *
 * <p>A change applies without restarting the provider ({@link TcpProvider#modified}): each
 * setting is read when the object it shapes is made, and its description says which (new
 * connections, new endpoints, new domains or fabrics, later {@code getInfo} calls). Open
 * objects keep the values they were made with. The OCD's name and description are in
 * {@code OSGI-INF/l10n/tcp.properties}.
 */
@ObjectClassDefinition(name = "%tcp.name", description = "%tcp.description", pid = "io.jofi.provider.tcp",
        localization = "OSGI-INF/l10n/tcp")
@interface TcpSettings {
    /** Default of {@link #unexpectedBytes()}. */
    int DEFAULT_UNEXPECTED_BYTES = 4 << 20;
    /** Default of {@link #unexpectedMessages()}. */
    int DEFAULT_UNEXPECTED_MESSAGES = 256;

    /**
     * Bytes of unexpected messages (arrived before a receive was posted) one connection
     * buffers; beyond that it stops reading from the peer (back-pressure) until receives are posted.
     */
    @AttributeDefinition(description = "Bytes of unexpected messages (arrived before a receive was posted) one connection buffers before it stops reading from the peer. Applies to new endpoints.")
    int unexpectedBytes() default DEFAULT_UNEXPECTED_BYTES;

    /**
     * {@code SO_SNDBUF} of every connection, bytes; 0 (default) leaves the kernel's default and
     * its send-buffer auto-tuning (Linux: {@code net.ipv4.tcp_wmem}), as libfabric's tcp
     * provider does. A fixed size turns auto-tuning off for that socket.
     */
    @AttributeDefinition(description = "SO_SNDBUF of every connection in bytes; 0 keeps the kernel's auto-tuning. Applies to new connections.")
    int socketSendBuffer() default 0;

    /**
     * {@code SO_RCVBUF} of every connection (set on listening sockets before they accept and on
     * connecting sockets before they connect, so that the window scale covers it), bytes; 0
     * (default) leaves the kernel's auto-tuning ({@code net.ipv4.tcp_rmem}).
     */
    @AttributeDefinition(description = "SO_RCVBUF of every connection (and listener) in bytes; 0 keeps the kernel's auto-tuning. Applies to new connections and listeners.")
    int socketReceiveBuffer() default 0;

    /** Default of {@link #connectionSetupTimeout()}, milliseconds. */
    int DEFAULT_CONNECTION_SETUP_TIMEOUT = 5_000;
    /** Default of {@link #keepAliveIdle()}, seconds (libfabric's tcp provider: 5). */
    int DEFAULT_KEEPALIVE_IDLE = 5;
    /** Default of {@link #keepAliveInterval()}, seconds (libfabric's tcp provider: 2). */
    int DEFAULT_KEEPALIVE_INTERVAL = 2;
    /** Default of {@link #keepAliveCount()} (libfabric's tcp provider: 2). */
    int DEFAULT_KEEPALIVE_COUNT = 2;
    /**
     * Default of {@link #userTimeout()}, milliseconds: 15 s rather than 20 s so that a cut is
     * reported within 20 s (the kernel needs a few hundred ms past the timeout); it is also the
     * least time an idle connection's cut takes to be found (keepalive alone: about 9 s).
     */
    int DEFAULT_USER_TIMEOUT = 15_000;
    /** Default of {@link #progressTimeout()}, milliseconds. */
    int DEFAULT_PROGRESS_TIMEOUT = 60_000;

    /**
     * Milliseconds an accepted socket may take to deliver its whole connection request (MSG
     * request or RDM hello); after that it is closed, so half-open and slowloris connections
     * cannot hold descriptors. 0 turns the deadline off.
     */
    @AttributeDefinition(description = "Milliseconds an accepted socket may take to deliver its connection request before it is closed; 0: no limit. Applies to new fabrics.")
    int connectionSetupTimeout() default DEFAULT_CONNECTION_SETUP_TIMEOUT;

    /**
     * TCP keepalive on every connection: seconds of idleness before the first probe
     * ({@code TCP_KEEPIDLE}); 0 turns keepalive off. Finds a dead host or a broken path on an
     * idle connection; a stopped process whose kernel still answers is found by
     * {@link #progressTimeout()}.
     */
    @AttributeDefinition(description = "Seconds of idleness before the first TCP keepalive probe (TCP_KEEPIDLE); 0 turns keepalive off. Applies to new connections.")
    int keepAliveIdle() default DEFAULT_KEEPALIVE_IDLE;

    /** Seconds between keepalive probes ({@code TCP_KEEPINTVL}). */
    @AttributeDefinition(description = "Seconds between TCP keepalive probes (TCP_KEEPINTVL), at least 1. Applies to new connections.")
    int keepAliveInterval() default DEFAULT_KEEPALIVE_INTERVAL;

    /** Unanswered keepalive probes before the kernel resets the connection ({@code TCP_KEEPCNT}). */
    @AttributeDefinition(description = "Unanswered TCP keepalive probes before the kernel resets the connection (TCP_KEEPCNT), at least 1. Applies to new connections.")
    int keepAliveCount() default DEFAULT_KEEPALIVE_COUNT;

    /**
     * Milliseconds a connection with operations waiting for its peer (sends not yet written,
     * acknowledgements, read or atomic responses, a message arriving in parts) may move no byte
     * in either direction before it is failed with {@code ETIMEDOUT}: the peer is stopped,
     * hung, or unreachable with data outstanding. 0 turns it off (libfabric's behaviour: wait
     * for ever).
     */
    @AttributeDefinition(description = "Milliseconds a connection with pending operations may move no byte before it fails with ETIMEDOUT; 0: wait for ever. Applies to new domains.")
    int progressTimeout() default DEFAULT_PROGRESS_TIMEOUT;

    /**
     * {@code TCP_USER_TIMEOUT} of every connection, milliseconds: the kernel ends a connection
     * whose sent data (or, on an idle connection, whose keepalive probes) stay unacknowledged
     * this long: a cut link or a dead host, reported as an error at once. A peer that is alive
     * but slow to consume still acknowledges and is not affected. 0 leaves the kernel's default
     * (retransmissions for about 15 minutes). Linux only, set through JNA; {@code jofi info -e}
     * says whether it is available here and why not.
     */
    @AttributeDefinition(description = "TCP_USER_TIMEOUT of every connection in ms: unacknowledged data (a cut link, a dead host) ends the connection after it; a slow but live peer is not affected; 0: the kernel's default. Applies to new connections.")
    int userTimeout() default DEFAULT_USER_TIMEOUT;

    /** How many unexpected messages one connection buffers before it stops reading. */
    @AttributeDefinition(description = "Unexpected messages one connection buffers before it stops reading from the peer. Applies to new endpoints.")
    int unexpectedMessages() default DEFAULT_UNEXPECTED_MESSAGES;

    /**
     * Only offer the addresses of this network interface (e.g. {@code eth0}), as libfabric's
     * {@code FI_TCP_IFACE}; empty offers every interface that is up, or only the one that the
     * environment variable {@code FI_TCP_IFACE} names when it is set (libfabric's name).
     */
    @AttributeDefinition(description = "Only offer the addresses of this network interface (as FI_TCP_IFACE), e.g. eth0; empty: the environment variable FI_TCP_IFACE when set, else every interface that is up. Applies to later getInfo calls (new domains).")
    String iface() default "";

    /**
     * The lowest port a passive endpoint or an RDM endpoint listens on when its service is 0
     * (as libfabric's {@code FI_TCP_PORT_LOW_RANGE}); 0 lets the kernel choose an ephemeral port.
     */
    @AttributeDefinition(description = "Lowest port a listener (passive endpoint, RDM endpoint) binds when its service is 0 (as FI_TCP_PORT_LOW_RANGE); 0: an ephemeral port. Applies to later listen/enable calls.")
    int portLow() default 0;

    /** The highest port of {@link #portLow()}'s range (as {@code FI_TCP_PORT_HIGH_RANGE}); 0 means {@code portLow} alone. */
    @AttributeDefinition(description = "Highest port of the listener range (as FI_TCP_PORT_HIGH_RANGE); 0: portLow alone. Applies to later listen/enable calls.")
    int portHigh() default 0;
}
