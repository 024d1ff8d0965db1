package io.jofi.examples.rsa;

import org.osgi.framework.ServiceException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;

/**
 * The calling side: takes the imported {@link KeyValueStore} (the proxy Aries registers with
 * {@code service.imported}, so never the local one) and, once it is there, writes a key, reads
 * it back and prints both — the output a user looks for. It starts when configuration
 * {@code io.jofi.examples.rsa.client} exists; {@code key} and {@code text} in it choose what it
 * writes. Declarative Services activates it when the import appears and deactivates it when the
 * import goes (exporter gone, fabric provider stopped), and activates it again when it returns.
 */
@Component(service = {}, immediate = true, configurationPid = "io.jofi.examples.rsa.client",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public class KeyValueClientComponent {
    /** The configuration: what to write. */
    public @interface Config {
        String key() default "greeting";

        String text() default "hello over JOFI";
    }

    @Reference(target = "(service.imported=*)")
    private KeyValueStore store;

    @Activate
    void activate(Config config) {
        try {
            String before = store.put(config.key(), config.text());
            String after = store.get(config.key());
            System.out.println("kv-client: put(" + config.key() + ") replaced " + before + "; get(" + config.key()
                    + ") = " + after + "; keys = " + store.keys());
        } catch (ServiceException remoteFailure) {
            // the exporter is unreachable now; DS reactivates this component when the import returns
            System.out.println("kv-client: the remote store failed: " + remoteFailure);
        }
    }
}
