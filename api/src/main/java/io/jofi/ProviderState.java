package io.jofi;

/** Whether a provider can be used on this machine now. */
public enum ProviderState {
    /** The provider can open fabrics. */
    AVAILABLE,
    /** The provider is installed but cannot work here; {@link ProviderInfo#reason()} says why. */
    UNAVAILABLE
}
