package io.jofi.tools;

import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.osgi.framework.Bundle;

/**
 * Where {@code providers update} reads a bundle's new content from: the SOURCE the user gave
 * (a URL or a file path), else the bundle's location. The executable jar installs its
 * bundles with locations like {@code jar/io.jofi.provider.tcp-0.1.0.jar}, entries of the
 * jar itself (so on the class path), which {@link Bundle#update()} alone cannot open.
 */
final class BundleSource {
    private BundleSource() {
    }

    static InputStream open(Bundle bundle, String source) throws IOException {
        if (source != null) {
            return openUrlOrFile(source);
        }
        String location = bundle.getLocation();
        try {
            return new URL(location).openStream();
        } catch (MalformedURLException notAUrl) {
            InputStream embedded = ClassLoader.getSystemResourceAsStream(location);
            if (embedded != null) {
                return embedded;
            }
            return openUrlOrFile(location);
        }
    }

    private static InputStream openUrlOrFile(String source) throws IOException {
        try {
            return new URL(source).openStream();
        } catch (MalformedURLException notAUrl) {
            try {
                return Files.newInputStream(Path.of(source));
            } catch (NoSuchFileException e) {
                throw new CommandFailure("no bundle at " + source);
            }
        }
    }
}
