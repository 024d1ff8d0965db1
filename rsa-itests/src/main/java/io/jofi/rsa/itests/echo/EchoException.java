package io.jofi.rsa.itests.echo;

/** The checked exception {@link EchoService#fail} throws, which must reach the caller as itself. */
public class EchoException extends Exception {
    private static final long serialVersionUID = 1L;

    public EchoException(String message) {
        super(message);
    }
}
