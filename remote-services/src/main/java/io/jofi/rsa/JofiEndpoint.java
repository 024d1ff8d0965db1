package io.jofi.rsa;

import io.jofi.rsa.channel.ExportedServices;
import org.apache.aries.rsa.spi.Endpoint;
import org.osgi.service.remoteserviceadmin.EndpointDescription;

/** An exported service as Aries sees it: its description, and the close that stops answering its calls. */
final class JofiEndpoint implements Endpoint {
    private final EndpointDescription description;
    private final ExportedServices exports;
    private final long id;

    JofiEndpoint(EndpointDescription description, ExportedServices exports, long id) {
        this.description = description;
        this.exports = exports;
        this.id = id;
    }

    @Override
    public EndpointDescription description() {
        return description;
    }

    @Override
    public void close() {
        exports.remove(id);
    }
}
