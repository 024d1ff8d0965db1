package io.jofi;

/**
 * A provider as {@code fi_info -l} lists it.
 *
 * @param name    the provider name ({@code tcp}, {@code shm}, {@code verbs})
 * @param version its version
 * @param state   available or not
 * @param reason  why it is unavailable ({@code null} when available)
 */
public record ProviderInfo(String name, String version, ProviderState state, String reason) {
    @Override
    public String toString() {
        return name + " " + version + " " + (state == ProviderState.AVAILABLE ? "available"
                : "unavailable" + (reason == null ? "" : ": " + reason));
    }
}
