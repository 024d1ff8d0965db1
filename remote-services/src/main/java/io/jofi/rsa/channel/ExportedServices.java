package io.jofi.rsa.channel;

import io.jofi.rsa.wire.AdmittedTypes;
import io.jofi.rsa.wire.MethodTable;
import io.jofi.rsa.wire.ValueDecoder;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The services this container exports, by the id their endpoint descriptions carry; shared by
 * every channel, so one service answers on shm and tcp alike.
 */
public final class ExportedServices {
    /** One exported service: the object, its method numbering and the decoder of its arguments. */
    record Exported(Object service, MethodTable methods, ValueDecoder decoder, String name) {
    }

    private final ConcurrentHashMap<Long, Exported> services = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    /** Adds a service; returns its id. */
    public long add(Object service, Class<?>[] interfaces) {
        long id = ids.incrementAndGet();
        ClassLoader loader = service.getClass().getClassLoader();
        if (loader == null) {
            loader = interfaces[0].getClassLoader();
        }
        StringBuilder name = new StringBuilder();
        for (Class<?> type : interfaces) {
            name.append(name.length() == 0 ? "" : ",").append(type.getName());
        }
        services.put(id, new Exported(service, new MethodTable(interfaces),
                new ValueDecoder(loader, new AdmittedTypes(interfaces)), name.toString()));
        return id;
    }

    public void remove(long id) {
        services.remove(id);
    }

    Exported get(long id) {
        return services.get(id);
    }
}
