package io.jofi.rsa.itests;

/** {@link JofiCallsContract} over tcp with both containers on Eclipse Equinox instead of Felix. */
class EquinoxCallsIT extends JofiCallsContract {
    @Override
    String provider() {
        return "tcp";
    }

    @Override
    String framework() {
        return "equinox";
    }
}
