package io.jofi.rsa.wire;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Numbers the methods of a service's interfaces the same way on both sides: every public
 * non-static method, sorted by name and parameter types; a call carries the index and the hash
 * of that signature, so an importer and an exporter built from different interface versions
 * get an error instead of a call of the wrong method.
 */
public final class MethodTable {
    private final Method[] methods;
    private final int[] signatures;
    private final Map<Method, Integer> index = new HashMap<>();

    public MethodTable(Class<?>... interfaces) {
        TreeMap<String, List<Method>> bySignature = new TreeMap<>(Comparator.naturalOrder());
        for (Class<?> type : interfaces) {
            for (Method m : type.getMethods()) {
                if (!Modifier.isStatic(m.getModifiers())) {
                    bySignature.computeIfAbsent(signature(m), k -> new ArrayList<>()).add(m);
                }
            }
        }
        methods = new Method[bySignature.size()];
        signatures = new int[bySignature.size()];
        int i = 0;
        for (Map.Entry<String, List<Method>> e : bySignature.entrySet()) {
            methods[i] = e.getValue().get(0);
            signatures[i] = e.getKey().hashCode();
            for (Method m : e.getValue()) {
                index.put(m, i);
            }
            i++;
        }
    }

    /** The method's name and parameter types, as the table sorts and hashes them. */
    static String signature(Method m) {
        StringBuilder sb = new StringBuilder(m.getName()).append('(');
        for (Class<?> p : m.getParameterTypes()) {
            sb.append(p.getName()).append(';');
        }
        return sb.append(')').toString();
    }

    /** The index of {@code m}, or -1 when it belongs to none of the interfaces. */
    public int indexOf(Method m) {
        Integer i = index.get(m);
        return i == null ? -1 : i;
    }

    public int size() {
        return methods.length;
    }

    public Method method(int i) {
        return methods[i];
    }

    public int signature(int i) {
        return signatures[i];
    }
}
