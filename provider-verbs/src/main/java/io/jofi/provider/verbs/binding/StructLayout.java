package io.jofi.provider.verbs.binding;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The layout a {@code …Descriptor} class claims for one native struct: its C type, its size,
 * and each field the binding touches with its offset and width. The ABI check test turns
 * every layout into {@code sizeof}/{@code offsetof} lines of a C program compiled against the
 * real headers and compares, so a descriptor cannot name a field the check does not see.
 *
 * <p>Built once, in the descriptor's static initializer; {@link #field} is only for that.
 */
public final class StructLayout {
    /** One named field: its C member designator (e.g. {@code wr.rdma.rkey}), offset and width. */
    public record Field(String cName, int offset, int width) {
    }

    private final String cType;
    private final int size;
    private final List<Field> fields = new ArrayList<>();

    private StructLayout(String cType, int size) {
        this.cType = cType;
        this.size = size;
    }

    /** A layout of {@code cType} (e.g. {@code "struct ibv_sge"}) of {@code size} bytes. */
    public static StructLayout of(String cType, int size) {
        return new StructLayout(cType, size);
    }

    /** Adds a field (descriptor initializers only); returns this layout. */
    StructLayout field(String cName, int offset, int width) {
        if (offset < 0 || width <= 0 || offset + width > size) {
            throw new IllegalArgumentException(cType + "." + cName + " at " + offset + "+" + width
                    + " lies outside its " + size + " bytes");
        }
        fields.add(new Field(cName, offset, width));
        return this;
    }

    /** The C type, as {@code sizeof} takes it. */
    public String cType() {
        return cType;
    }

    /** The size the descriptor claims. */
    public int size() {
        return size;
    }

    /** The fields the descriptor claims, in declaration order. */
    public List<Field> fields() {
        return Collections.unmodifiableList(fields);
    }

    @Override
    public String toString() {
        return cType + " (" + size + " bytes, " + fields.size() + " fields)";
    }
}
