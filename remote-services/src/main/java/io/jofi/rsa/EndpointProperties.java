package io.jofi.rsa;

/**
 * The names of the properties this provider reads from exported services and writes into
 * endpoint descriptions.
 */
public final class EndpointProperties {
    /** The config type ({@code service.exported.configs=io.jofi}). */
    public static final String CONFIG_TYPE = "io.jofi";
    /** Intents every endpoint of this provider satisfies. */
    public static final String[] INTENTS = {"osgi.basic", "osgi.async"};

    /** On an exported service: force one fabric provider (shm, tcp, verbs). On an endpoint: the exporter's first choice. */
    public static final String PROVIDER = "io.jofi.provider";
    /** The endpoint type, always {@code rdm}. */
    public static final String ENDPOINT_TYPE = "io.jofi.endpoint.type";
    /** The exporter's fabric address on {@link #PROVIDER}, URL-safe Base64 of {@code getName()}. */
    public static final String ADDRESS = "io.jofi.address";
    /** Every provider the service is reachable on, as {@code provider=address} strings. */
    public static final String ADDRESSES = "io.jofi.addresses";
    /** The exporter's host identity: same value on both sides means "same host" (shm is possible). */
    public static final String HOST = "io.jofi.host";
    /** The exported service's id at its exporter. */
    public static final String SERVICE = "io.jofi.service";
    /** Call timeout in milliseconds (on the exported service, carried to importers; default from the settings). */
    public static final String TIMEOUT = "io.jofi.rsa.timeout";

    private EndpointProperties() {
    }
}
