package io.jofi.rsa.itests;

/** {@link JofiCallsContract} over JOFI's shm provider: two Felix JVMs sharing mapped memory. */
class JofiShmCallsIT extends JofiCallsContract {
    @Override
    String provider() {
        return "shm";
    }
}
