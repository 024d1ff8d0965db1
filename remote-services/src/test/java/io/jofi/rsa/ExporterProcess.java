package io.jofi.rsa;

import io.jofi.rsa.channel.ChannelSettings;
import io.jofi.rsa.channel.ExportedServices;
import io.jofi.rsa.channel.RsaCounters;
import java.io.InputStream;
import java.util.Map;
import org.apache.aries.rsa.spi.Endpoint;

/**
 * A container of its own for {@link KilledExporterTest}: exports {@link EchoImpl} over the
 * provider named by its argument, prints the endpoint's properties as {@code key=value} lines and
 * {@code READY}, and lives until its stdin closes (or it is killed).
 */
public final class ExporterProcess {
    private ExporterProcess() {
    }

    public static void main(String[] args) throws Exception {
        // the verbs VM test's child: the verbs provider bound by hand, endpoints on the device's address
        io.jofi.Fabrics fabrics = Boolean.getBoolean("jofi.rsa.test.verbs") ? VerbsEchoVmTest.verbsFabrics() : RsaPair.FABRICS;
        ChannelSettings settings = new ChannelSettings(30_000, null, ChannelSettings.MAX_INLINE, 16, 100,
                System.getProperty("jofi.rsa.test.node"));
        ChannelPool pool = new ChannelPool(fabrics, settings, new ExportedServices(), new RsaCounters());
        JofiDistributionProvider exporter = new JofiDistributionProvider(pool, args[0]);
        Map<String, Object> props = new java.util.HashMap<>();
        props.put(org.osgi.framework.Constants.OBJECTCLASS, new String[] {Echo.class.getName()});
        props.put(org.osgi.service.remoteserviceadmin.RemoteConstants.SERVICE_EXPORTED_INTERFACES, "*");
        Endpoint endpoint = exporter.exportService(new EchoImpl(), null, props, new Class[] {Echo.class});
        for (Map.Entry<String, Object> e : endpoint.description().getProperties().entrySet()) {
            Object v = e.getValue();
            String text = v instanceof String[] a ? String.join(",", a) : String.valueOf(v);
            System.out.println(e.getKey() + "=" + text);
        }
        System.out.println("READY");
        System.out.flush();
        InputStream in = System.in;
        while (in.read() >= 0) {
            // wait for the parent to close our stdin
        }
        pool.close("parent done");
    }
}
