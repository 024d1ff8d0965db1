package io.jofi.examples.osgi;

import java.util.List;
import org.osgi.annotation.versioning.ProviderType;

/** What the example component offers: which provider it uses now, and every change so far. */
@ProviderType
public interface FabricChoice {
    /** The provider whose domain the component holds open now, or {@code null} when none fits. */
    String provider();

    /** Every change, oldest first: {@code "using shm"}, {@code "shm departed"}, {@code "using tcp;ofi_rxm"}, ... */
    List<String> history();
}
