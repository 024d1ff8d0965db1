package io.jofi.examples.rsa;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;

/**
 * The exporting side: a {@link KeyValueStore} in memory, registered with the two properties
 * that make Aries' topology manager export it over JOFI. It starts when configuration
 * {@code io.jofi.examples.rsa.store} exists; that configuration's properties become service
 * properties, so {@code io.jofi.provider=shm} (or {@code tcp}, {@code verbs}) chooses the
 * fabric and {@code io.jofi.rsa.timeout} the callers' timeout.
 */
@Component(service = KeyValueStore.class, configurationPid = "io.jofi.examples.rsa.store",
        configurationPolicy = ConfigurationPolicy.REQUIRE,
        property = {"service.exported.interfaces=*", "service.exported.configs=io.jofi"})
public class KeyValueStoreComponent implements KeyValueStore {
    private final ConcurrentMap<String, String> entries = new ConcurrentHashMap<>();

    @Override
    public String put(String key, String value) {
        return entries.put(key, value);
    }

    @Override
    public String get(String key) {
        return entries.get(key);
    }

    @Override
    public String remove(String key) {
        return entries.remove(key);
    }

    @Override
    public List<String> keys() {
        List<String> keys = new ArrayList<>(entries.keySet());
        keys.sort(null);
        return keys;
    }
}
