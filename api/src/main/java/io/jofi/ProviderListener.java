package io.jofi;

import org.osgi.annotation.versioning.ConsumerType;

/** Hears providers arrive and depart (R15). Implemented by applications. */
@ConsumerType
public interface ProviderListener {
    /** A provider service arrived; {@code getInfo} sees it from now on. */
    void providerAdded(ProviderInfo provider);

    /** A provider service departed; everything it opened has been shut down (R15). */
    void providerRemoved(ProviderInfo provider);
}
