package io.jofi.rsa.itests.agent;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Applies the configurations a container starts with ({@code pid/key=value} lines in a properties
 * file) before the bundles after the agent start, so that e.g. fastbin binds where the test says.
 */
final class InitialConfigurations {
    private final BundleContext context;

    InitialConfigurations(BundleContext context) {
        this.context = context;
    }

    void apply(String file) throws IOException {
        if (file == null) {
            return;
        }
        Properties lines = new Properties();
        try (InputStream in = new FileInputStream(file)) {
            lines.load(in);
        }
        Map<String, Dictionary<String, Object>> byPid = new TreeMap<>();
        for (String name : lines.stringPropertyNames()) {
            int slash = name.indexOf('/');
            if (slash <= 0) {
                throw new IllegalArgumentException("not pid/key: " + name + " in " + file);
            }
            byPid.computeIfAbsent(name.substring(0, slash), pid -> new Hashtable<>())
                    .put(name.substring(slash + 1), lines.getProperty(name));
        }
        if (byPid.isEmpty()) {
            return;
        }
        ServiceReference<ConfigurationAdmin> reference = context.getServiceReference(ConfigurationAdmin.class);
        if (reference == null) {
            throw new IllegalStateException("configurations given but no ConfigurationAdmin started before the agent");
        }
        ConfigurationAdmin admin = context.getService(reference);
        try {
            for (Map.Entry<String, Dictionary<String, Object>> entry : byPid.entrySet()) {
                admin.getConfiguration(entry.getKey(), "?").update(entry.getValue());
            }
        } finally {
            context.ungetService(reference);
        }
    }
}
