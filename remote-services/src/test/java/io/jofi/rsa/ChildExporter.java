package io.jofi.rsa;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.osgi.framework.Constants;
import org.osgi.service.remoteserviceadmin.EndpointDescription;
import org.osgi.service.remoteserviceadmin.RemoteConstants;

/**
 * An {@link ExporterProcess} in a JVM of its own: starts it, reads the endpoint it prints, and
 * imports that endpoint as an {@link Echo} proxy through a given importer; kills it on demand.
 */
final class ChildExporter implements AutoCloseable {
    private final Process child;
    private final EndpointDescription endpoint;

    ChildExporter(String provider, String... jvmOptions) throws IOException {
        java.util.List<String> command = new java.util.ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(java.util.List.of(jvmOptions));
        command.addAll(java.util.List.of("-cp", System.getProperty("java.class.path"), ExporterProcess.class.getName(),
                provider));
        child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Map<String, Object> props = new HashMap<>();
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.equals("READY")) {
            int eq = line.indexOf('=');
            props.put(line.substring(0, eq), line.substring(eq + 1));
        }
        if (line == null) {
            child.destroyForcibly();
            throw new IOException("the exporter process ended before it was ready");
        }
        props.put(Constants.OBJECTCLASS, new String[] {Echo.class.getName()});
        props.put(EndpointProperties.ADDRESSES, ((String) props.get(EndpointProperties.ADDRESSES)).split(","));
        props.put(RemoteConstants.SERVICE_IMPORTED_CONFIGS, EndpointProperties.CONFIG_TYPE);
        props.put(EndpointProperties.SERVICE, Long.parseLong((String) props.get(EndpointProperties.SERVICE)));
        props.remove(RemoteConstants.SERVICE_INTENTS);
        endpoint = new EndpointDescription(props);
    }

    /** The exported endpoint as a proxy made by {@code importer}. */
    Echo importWith(JofiDistributionProvider importer) {
        return (Echo) importer.importEndpoint(Echo.class.getClassLoader(), null, new Class[] {Echo.class}, endpoint);
    }

    /** SIGKILL, and waits for the process to be gone. */
    void kill() throws InterruptedException {
        child.destroyForcibly();
        child.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }
}
