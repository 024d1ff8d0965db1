package io.jofi.rsa.itests.agent;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;

import org.apache.aries.rsa.discovery.endpoint.EndpointDescriptionParser;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.remoteserviceadmin.EndpointDescription;
import org.osgi.service.remoteserviceadmin.ExportReference;
import org.osgi.service.remoteserviceadmin.RemoteServiceAdmin;
import org.osgi.util.tracker.ServiceTracker;

import io.jofi.rsa.itests.echo.EchoService;

/**
 * The exporter's side: registers the echo service with export properties, writes the endpoint
 * descriptions of what this container exports (for {@code discovery.local} in another container),
 * and sets configurations.
 */
final class ExportCommands {
    private final BundleContext context;
    /**
     * Held open, never released per command: Aries' RemoteServiceAdmin is a service factory whose
     * per-bundle instance, once released, closes the exports of the releasing bundle's services.
     */
    private final ServiceTracker<RemoteServiceAdmin, RemoteServiceAdmin> remoteServiceAdmins;
    private final List<ServiceRegistration<EchoService>> registrations = new ArrayList<>();

    ExportCommands(BundleContext context) {
        this.context = context;
        this.remoteServiceAdmins = new ServiceTracker<>(context, RemoteServiceAdmin.class, null);
        remoteServiceAdmins.open();
    }

    /**
     * {@code export CONFIGS [key=value ...]}: registers the echo service with
     * {@code service.exported.interfaces=*}, {@code service.exported.configs=CONFIGS} (comma list)
     * and the given string properties. Each call registers one more service (the benchmark
     * exports one per transport, told apart by a property of its own).
     */
    String export(String[] arguments) {
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put("service.exported.interfaces", "*");
        properties.put("service.exported.configs", arguments[0].split(","));
        for (int i = 1; i < arguments.length; i++) {
            int equals = arguments[i].indexOf('=');
            if (equals <= 0) {
                throw new IllegalArgumentException("not key=value: " + arguments[i]);
            }
            properties.put(arguments[i].substring(0, equals), arguments[i].substring(equals + 1));
        }
        registrations.add(context.registerService(EchoService.class, new EchoServiceImpl(), properties));
        return "";
    }

    String unexport() {
        if (registrations.isEmpty()) {
            throw new IllegalStateException("nothing exported");
        }
        registrations.forEach(ServiceRegistration::unregister);
        registrations.clear();
        return "";
    }

    /**
     * {@code endpoints DIR [INTERFACE]}: writes one endpoint-description XML file per exported
     * endpoint of the echo service (or of INTERFACE) into DIR; answers how many (zero is an error:
     * nothing is exported yet).
     */
    String writeEndpoints(String[] arguments) throws IOException {
        File directory = new File(arguments[0]);
        String exported = arguments.length > 1 ? arguments[1] : EchoService.class.getName();
        if (!directory.isDirectory() && !directory.mkdirs()) {
            throw new IOException("cannot create " + directory);
        }
        EndpointDescriptionParser parser = new EndpointDescriptionParser();
        int written = 0;
        for (RemoteServiceAdmin admin : remoteServiceAdmins.getServices(new RemoteServiceAdmin[0])) {
            for (ExportReference export : admin.getExportedServices()) {
                EndpointDescription endpoint = export.getExportedEndpoint();
                if (endpoint != null && endpoint.getInterfaces().contains(exported)) {
                    written++;
                    parser.writeEndpoint(endpoint, new FileOutputStream(new File(directory, "endpoint-" + written + ".xml")));
                }
            }
        }
        if (written == 0) {
            throw new IllegalStateException("no exported endpoint of " + exported);
        }
        return Integer.toString(written);
    }

    /** {@code config PID key=value ...}: creates or replaces the configuration PID (string values). */
    String configure(String[] arguments) throws IOException {
        Dictionary<String, Object> properties = new Hashtable<>();
        for (int i = 1; i < arguments.length; i++) {
            int equals = arguments[i].indexOf('=');
            properties.put(arguments[i].substring(0, equals), arguments[i].substring(equals + 1));
        }
        ServiceReference<ConfigurationAdmin> reference = context.getServiceReference(ConfigurationAdmin.class);
        if (reference == null) {
            throw new IllegalStateException("no ConfigurationAdmin");
        }
        try {
            Configuration configuration = context.getService(reference).getConfiguration(arguments[0], "?");
            configuration.update(properties);
        } finally {
            context.ungetService(reference);
        }
        return "";
    }
}
