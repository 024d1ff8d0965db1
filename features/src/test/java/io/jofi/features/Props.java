package io.jofi.features;

/** Reads the system properties the features pom passes through failsafe, failing clearly when one is missing. */
final class Props {
    private Props() {
    }

    static String required(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isEmpty() || value.startsWith("${")) {
            throw new IllegalStateException("system property " + name
                    + " is not set: run the test through Maven (mvn verify -pl features -am)");
        }
        return value;
    }
}
