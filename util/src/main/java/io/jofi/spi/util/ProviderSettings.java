package io.jofi.spi.util;

import java.lang.annotation.Annotation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads a provider's settings — its DS component property type ({@code @interface TcpSettings})
 * — from the system properties {@code <prefix><attribute>}, so that a plain JVM and an OSGi
 * container without configuration get the same settings, and describes them for
 * {@code jofi info -e}.
 *
 * <p>A system property that does not parse as its attribute's type is reported once per JVM
 * (as a {@link System.Logger} warning naming the property, the value given and the value
 * kept) and the default is kept: a typing mistake in {@code -Djofi.tcp.keepAliveIdle=5s}
 * must not pass silently, nor flood the log each time a provider is constructed.
 *
 * @param <T> the property type
 */
public final class ProviderSettings<T extends Annotation> {
    /** The malformed properties already reported ({@code name=value}): each is reported once per JVM. */
    private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();
    private static final System.Logger LOG = System.getLogger(ProviderSettings.class.getName());

    private final Class<T> type;
    private final String prefix;
    private final List<Method> attributes;

    /**
     * @param type   the property type, an annotation whose elements all have defaults
     * @param prefix the system property prefix, e.g. {@code "jofi.tcp."}
     */
    public ProviderSettings(Class<T> type, String prefix) {
        this.type = Objects.requireNonNull(type);
        this.prefix = Objects.requireNonNull(prefix);
        List<Method> as = new ArrayList<>();
        for (Method m : type.getDeclaredMethods()) {
            if (m.getParameterCount() == 0 && !Modifier.isStatic(m.getModifiers()) && m.getDefaultValue() != null) {
                m.setAccessible(true); // property types are package-private in their providers
                as.add(m);
            }
        }
        as.sort(Comparator.comparing(Method::getName));
        this.attributes = List.copyOf(as);
    }

    /** The settings of a JVM without configuration: each attribute's system property, else its default. */
    public T fromSystemProperties() {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Method m : attributes) {
            values.put(m.getName(), systemProperty(m, m.getDefaultValue()));
        }
        return instance(values);
    }

    /**
     * DS: the configured settings, where an attribute the configuration leaves at its default
     * takes its system property when one is set (the container of {@code ./jofi} has no
     * configuration, so {@code JOFI_JAVA_OPTS=-Djofi.shm.cmaThreshold=0} is how a run sets one
     * there).
     */
    public T withSystemProperties(T configured) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Method m : attributes) {
            Object v = value(m, configured);
            values.put(m.getName(), Objects.equals(v, m.getDefaultValue()) ? systemProperty(m, v) : v);
        }
        return instance(values);
    }

    /** Every attribute with its property name, type, default, value in {@code current} and metatype description. */
    public List<ProviderSetting> describe(T current) {
        Map<String, String> descriptions = MetatypeDescriptions.of(type);
        List<ProviderSetting> out = new ArrayList<>(attributes.size());
        for (Method m : attributes) {
            out.add(new ProviderSetting(prefix + m.getName(), typeName(m.getReturnType()), text(m.getDefaultValue()),
                    text(value(m, current)), descriptions.getOrDefault(m.getName(), "")));
        }
        return out;
    }

    /** The system property of {@code m} parsed, or {@code dflt} when absent or (reported once) malformed. */
    private Object systemProperty(Method m, Object dflt) {
        String name = prefix + m.getName();
        String raw = System.getProperty(name);
        if (raw == null) {
            return dflt;
        }
        Object parsed = parse(m.getReturnType(), raw.trim());
        if (parsed == null) {
            if (REPORTED.add(name + "=" + raw)) {
                LOG.log(System.Logger.Level.WARNING, "{0}: ''{1}'' is not {2}; keeping {3}", name, raw,
                        article(typeName(m.getReturnType())), text(dflt));
            }
            return dflt;
        }
        return parsed;
    }

    /** {@code raw} as a value of {@code t}; {@code null} when it is not one. */
    static Object parse(Class<?> t, String raw) {
        try {
            if (t == int.class) {
                return Integer.parseInt(raw);
            }
            if (t == long.class) {
                return Long.parseLong(raw);
            }
        } catch (NumberFormatException e) {
            return null;
        }
        if (t == boolean.class) {
            return raw.equalsIgnoreCase("true") ? Boolean.TRUE : raw.equalsIgnoreCase("false") ? Boolean.FALSE : null;
        }
        return t == String.class ? raw : null;
    }

    private static Object value(Method m, Object instance) {
        try {
            return m.invoke(instance);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read setting " + m.getName() + ": " + e, e);
        }
    }

    private static String typeName(Class<?> t) {
        return t == int.class ? "Integer" : t == long.class ? "Long" : t == boolean.class ? "Boolean" : "String";
    }

    private static String article(String typeName) {
        return (typeName.startsWith("I") ? "an " : "a ") + typeName;
    }

    private static String text(Object v) {
        return v instanceof String s ? '"' + s + '"' : String.valueOf(v);
    }

    /** An instance of the property type answering {@code values}, as DS makes one from a configuration. */
    private T instance(Map<String, Object> values) {
        Map<String, Object> frozen = Map.copyOf(values);
        Object proxy = Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (self, m, args) -> {
            switch (m.getName()) {
                case "annotationType":
                    return type;
                case "hashCode":
                    return frozen.hashCode();
                case "equals":
                    return self == args[0];
                case "toString":
                    return type.getSimpleName() + frozen;
                default:
                    return frozen.get(m.getName());
            }
        });
        return type.cast(proxy);
    }

    @Override
    public String toString() {
        return type.getSimpleName() + " " + prefix + "* " + Arrays.toString(attributes.stream().map(Method::getName).toArray());
    }
}
