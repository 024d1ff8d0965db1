package io.jofi.rsa.itests.launcher;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;

/**
 * The main class of a forked container: boots the OSGi framework found on the class path (Felix
 * or Equinox, whichever jar the test put there) with the framework properties and the bundle
 * files of a launch file, starts the bundles in the file's order and runs until the framework
 * stops.
 *
 * <p>Launch file (properties): {@code framework.KEY=VALUE} framework properties,
 * {@code bundle.N=/path/to.jar} bundles (N from 0, the start order; fragments are installed, not
 * started). It prints {@code @@started FRAMEWORK} once every bundle started, or
 * {@code @@err ...} and exits 3 when one fails to, so the test never waits on a broken container.
 */
public final class ContainerMain {
    private ContainerMain() {
    }

    public static void main(String[] arguments) throws Exception {
        Properties launch = new Properties();
        try (InputStream in = new FileInputStream(arguments[0])) {
            launch.load(in);
        }
        Map<String, String> properties = new HashMap<>();
        List<String> bundles = new ArrayList<>();
        for (String key : launch.stringPropertyNames()) {
            if (key.startsWith("framework.")) {
                properties.put(key.substring("framework.".length()), launch.getProperty(key));
            }
        }
        for (int i = 0; launch.getProperty("bundle." + i) != null; i++) {
            bundles.add(launch.getProperty("bundle." + i));
        }
        Iterator<FrameworkFactory> factories = ServiceLoader.load(FrameworkFactory.class).iterator();
        if (!factories.hasNext()) {
            fail("no OSGi framework on the class path", null);
        }
        Framework framework = factories.next().newFramework(properties);
        framework.init();
        List<Bundle> installed = install(framework.getBundleContext(), bundles);
        framework.start();
        for (Bundle bundle : installed) {
            if (bundle.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
                try {
                    bundle.start();
                } catch (BundleException | RuntimeException e) {
                    framework.stop();
                    fail("start " + bundle.getSymbolicName(), e);
                }
            }
        }
        System.out.println("@@started " + framework.getSymbolicName());
        System.out.flush();
        FrameworkEvent stopped = framework.waitForStop(0);
        System.exit(stopped.getType() == FrameworkEvent.STOPPED ? 0 : 4);
    }

    private static List<Bundle> install(BundleContext context, List<String> files) throws IOException {
        List<Bundle> installed = new ArrayList<>();
        for (String file : files) {
            try {
                installed.add(context.installBundle(new File(file).toURI().toString()));
            } catch (BundleException e) {
                fail("install " + file, e);
            }
        }
        return installed;
    }

    private static void fail(String what, Throwable cause) {
        StringBuilder text = new StringBuilder("@@err ").append(what);
        for (Throwable t = cause; t != null; t = t.getCause()) {
            text.append(" <- ").append(t.getClass().getName()).append(": ").append(t.getMessage());
        }
        System.out.println(text.toString().replace('\n', ' '));
        System.out.flush();
        if (cause != null) {
            cause.printStackTrace();
        }
        System.exit(3);
    }
}
