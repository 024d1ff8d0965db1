package io.jofi.tools;

import org.osgi.framework.Bundle;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.Version;

/**
 * The JOFI version as a user reads it: one spelling everywhere, the Maven one
 * ({@code 0.1.0-SNAPSHOT}), whether it comes from a bundle ({@code 0.1.0.SNAPSHOT}) or a jar.
 */
final class ProductVersion {
    private ProductVersion() {
    }

    /** The version of the bundle (or jar) that holds {@code type}, in Maven's spelling. */
    static String of(Class<?> type) {
        Bundle b = FrameworkUtil.getBundle(type);
        if (b != null) {
            return maven(b.getVersion());
        }
        String v = type.getPackage() == null ? null : type.getPackage().getImplementationVersion();
        return v == null ? "unknown (not in a bundle)" : v;
    }

    /** {@code 0.1.0.SNAPSHOT} → {@code 0.1.0-SNAPSHOT}; {@code 1.2.3} stays. */
    static String maven(Version v) {
        String plain = v.getMajor() + "." + v.getMinor() + "." + v.getMicro();
        return v.getQualifier().isEmpty() ? plain : plain + "-" + v.getQualifier();
    }
}
