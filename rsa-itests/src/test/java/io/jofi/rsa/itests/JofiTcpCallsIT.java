package io.jofi.rsa.itests;

/** {@link JofiCallsContract} over JOFI's tcp provider, two Felix containers. */
class JofiTcpCallsIT extends JofiCallsContract {
    @Override
    String provider() {
        return "tcp";
    }
}
