package io.jofi.rsa;

/** The checked exception {@link Echo#fail} declares. */
public class EchoProblem extends Exception {
    private static final long serialVersionUID = 1L;

    public EchoProblem(String message) {
        super(message);
    }
}
