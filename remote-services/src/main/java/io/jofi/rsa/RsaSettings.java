package io.jofi.rsa;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** The settings of the remote-services distribution provider (PID {@code io.jofi.rsa}). */
@ObjectClassDefinition(name = "JOFI remote services", description = "The io.jofi distribution provider for Aries RSA")
public @interface RsaSettings {
    @AttributeDefinition(description = "Default call timeout in ms (an exported service's io.jofi.rsa.timeout wins)")
    long io_jofi_rsa_timeout() default 30_000;

    @AttributeDefinition(description = "Shared secret importers must prove (HMAC-SHA256); empty for none",
            type = org.osgi.service.metatype.annotations.AttributeType.PASSWORD)
    String io_jofi_rsa_secret() default "";

    @AttributeDefinition(description = "Fabric provider to use for every export and import (shm, tcp, verbs); empty"
            + " for the best one getInfo ranks")
    String io_jofi_provider() default "";

    @AttributeDefinition(description = "Node (address) the endpoints bind, e.g. an interface address for tcp; empty"
            + " for the provider's choice")
    String io_jofi_rsa_node() default "";

    @AttributeDefinition(description = "Bodies longer than this many bytes go by RMA rendezvous")
    int io_jofi_rsa_inline_limit() default 65_536;

    @AttributeDefinition(description = "Receive buffers each channel keeps posted")
    int io_jofi_rsa_receives() default 32;

    @AttributeDefinition(description = "How often (ms) a peer that calls wait for is pinged with delivery completion")
    long io_jofi_rsa_ping_millis() default 200;
}
