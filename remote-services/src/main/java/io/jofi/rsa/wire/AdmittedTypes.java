package io.jofi.rsa.wire;

import java.io.ObjectInputFilter;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.HashSet;
import java.util.Set;

/**
 * The {@link ObjectInputFilter} of one exported or imported service: it admits the service's
 * interfaces, every type their methods name (parameters, results, exceptions, type arguments,
 * array components), subtypes of the named types that are not JDK types, JDK value types
 * (boxes, strings, big numbers, java.time, the common collections) and JDK throwables. Anything
 * else — a comparator smuggled inside a {@code PriorityQueue}, a {@code URL}, a dynamic proxy,
 * a class of some other library on the class path — is refused, so a peer cannot make this JVM
 * run the {@code readObject} of a gadget class.
 */
public final class AdmittedTypes implements ObjectInputFilter {
    private static final int MAX_DEPTH = 64;
    private static final long MAX_REFERENCES = 1_000_000;
    private static final long MAX_ARRAY = 64L << 20;

    /**
     * JDK classes whose serialized form carries values only. {@code Object} and {@code Map$Entry}
     * are here because collections ask the filter about the arrays they allocate
     * ({@code Object[]}, {@code Map.Entry[]}); neither can be instantiated from a stream.
     */
    private static final Set<String> JDK_VALUES = Set.of("java.lang.Object", "java.util.Map$Entry",
            "java.lang.String", "java.lang.Boolean", "java.lang.Byte", "java.lang.Short", "java.lang.Character",
            "java.lang.Integer", "java.lang.Long", "java.lang.Float", "java.lang.Double", "java.lang.Number",
            "java.lang.Enum", "java.lang.StackTraceElement", "java.lang.Record",
            "java.math.BigInteger", "java.math.BigDecimal",
            "java.util.ArrayList", "java.util.LinkedList", "java.util.HashMap", "java.util.LinkedHashMap",
            "java.util.TreeMap", "java.util.HashSet", "java.util.LinkedHashSet", "java.util.TreeSet",
            "java.util.ArrayDeque", "java.util.PriorityQueue", "java.util.UUID", "java.util.Date",
            "java.util.Locale", "java.util.BitSet", "java.util.Optional", "java.util.Arrays$ArrayList",
            "java.util.CollSer", "java.util.Collections$EmptyList", "java.util.Collections$EmptySet",
            "java.util.Collections$EmptyMap", "java.util.Collections$SingletonList",
            "java.util.Collections$SingletonSet", "java.util.Collections$SingletonMap",
            "java.util.Collections$UnmodifiableCollection", "java.util.Collections$UnmodifiableList",
            "java.util.Collections$UnmodifiableRandomAccessList", "java.util.Collections$UnmodifiableSet",
            "java.util.Collections$UnmodifiableSortedSet", "java.util.Collections$UnmodifiableMap",
            "java.util.Collections$UnmodifiableSortedMap", "java.util.concurrent.ConcurrentHashMap",
            "java.util.concurrent.ConcurrentHashMap$Segment", "java.util.concurrent.CopyOnWriteArrayList",
            "java.time.Ser", "java.time.zone.Ser", "java.net.URI");

    private final Set<Class<?>> named = new HashSet<>();
    private final Set<Class<?>> supertypes = new HashSet<>();

    /** The filter for a service exported or imported with {@code interfaces}. */
    public AdmittedTypes(Class<?>... interfaces) {
        for (Class<?> type : interfaces) {
            addType(type);
            for (Method m : type.getMethods()) {
                if (Modifier.isStatic(m.getModifiers())) {
                    continue;
                }
                addGeneric(m.getGenericReturnType());
                for (Type p : m.getGenericParameterTypes()) {
                    addGeneric(p);
                }
                for (Type e : m.getGenericExceptionTypes()) {
                    addGeneric(e);
                }
            }
        }
    }

    private void addGeneric(Type type) {
        if (type instanceof Class<?> c) {
            addType(c);
        } else if (type instanceof ParameterizedType p) {
            addGeneric(p.getRawType());
            for (Type arg : p.getActualTypeArguments()) {
                addGeneric(arg);
            }
        } else if (type instanceof GenericArrayType a) {
            addGeneric(a.getGenericComponentType());
        } else if (type instanceof WildcardType w) {
            for (Type bound : w.getUpperBounds()) {
                addGeneric(bound);
            }
            for (Type bound : w.getLowerBounds()) {
                addGeneric(bound);
            }
        } else if (type instanceof TypeVariable<?> v) {
            for (Type bound : v.getBounds()) {
                if (bound != type) {
                    addGeneric(bound);
                }
            }
        }
    }

    private void addType(Class<?> type) {
        while (type.isArray()) {
            type = type.getComponentType();
        }
        if (type.isPrimitive() || !named.add(type)) {
            return;
        }
        if (!isJdk(type)) {
            // an interface's own type, or a type of the service's bundle: its implementations
            // and subclasses are what the service's authors chose to pass
            supertypes.add(type);
        }
    }

    private static boolean isJdk(Class<?> type) {
        String name = type.getName();
        return name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.")
                || name.startsWith("sun.") || name.startsWith("com.sun.");
    }

    @Override
    public Status checkInput(FilterInfo info) {
        if (info.depth() > MAX_DEPTH || info.references() > MAX_REFERENCES || info.arrayLength() > MAX_ARRAY) {
            return Status.REJECTED;
        }
        Class<?> type = info.serialClass();
        if (type == null) {
            return Status.UNDECIDED;
        }
        return admits(type) ? Status.ALLOWED : Status.REJECTED;
    }

    /** Whether an instance of {@code type} may be read from a peer. */
    public boolean admits(Class<?> type) {
        while (type.isArray()) {
            type = type.getComponentType();
        }
        if (type.isPrimitive() || named.contains(type) || JDK_VALUES.contains(type.getName())) {
            return true;
        }
        String name = type.getName();
        if (name.startsWith("java.time.") || name.startsWith("java.util.ImmutableCollections$")) {
            // value-based classes; the filter sees them too as what readResolve returns
            return true;
        }
        if (isJdk(type)) {
            // JDK exceptions and enums carry values only; any other JDK class must be listed
            return (Throwable.class.isAssignableFrom(type) && type.getName().startsWith("java."))
                    || (type.isEnum() && type.getName().startsWith("java."));
        }
        if (type.getName().startsWith("org.osgi.") && Throwable.class.isAssignableFrom(type)) {
            return true; // ServiceException and the other OSGi exceptions
        }
        for (Class<?> supertype : supertypes) {
            if (supertype.isAssignableFrom(type)) {
                return true;
            }
        }
        return false;
    }
}
