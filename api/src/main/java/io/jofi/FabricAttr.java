package io.jofi;

import java.util.Objects;

/**
 * Fabric attributes: libfabric's {@code struct fi_fabric_attr}, the {@code fabric_attr} of an
 * {@link Info} and the argument of {@code Fabrics.fabric} ({@code fi_fabric(3)}, fi_getinfo(3)).
 * Versions are encoded as {@code FI_VERSION(major, minor)} = {@code major << 16 | minor}. Mutable,
 * with fluent setters.
 */
public class FabricAttr {
    private String name;
    private String provName;
    private int provVersion;
    private int apiVersion;

    /**
     * Creates attributes with every number 0, every enum at its default and every reference null.
     */
    public FabricAttr() {
    }

    /**
     * {@code name}: the fabric name (for tcp, the IP network, e.g. {@code 127.0.0.0/8}); null when
     * unspecified.
     */
    public String name() {
        return name;
    }

    /** Sets {@link #name()} ({@code name}); returns this. */
    public FabricAttr name(String value) {
        this.name = value;
        return this;
    }

    /**
     * {@code prov_name}: the provider name ({@code tcp}, {@code shm}, {@code verbs}); in hints it
     * restricts the providers asked.
     */
    public String provName() {
        return provName;
    }

    /** Sets {@link #provName()} ({@code prov_name}); returns this. */
    public FabricAttr provName(String value) {
        this.provName = value;
        return this;
    }

    /** {@code prov_version}: the provider version, {@code major << 16 | minor}. */
    public int provVersion() {
        return provVersion;
    }

    /** Sets {@link #provVersion()} ({@code prov_version}); returns this. */
    public FabricAttr provVersion(int value) {
        this.provVersion = value;
        return this;
    }

    /**
     * {@code api_version}: the API version the fabric was opened with, {@code major << 16 | minor}.
     */
    public int apiVersion() {
        return apiVersion;
    }

    /** Sets {@link #apiVersion()} ({@code api_version}); returns this. */
    public FabricAttr apiVersion(int value) {
        this.apiVersion = value;
        return this;
    }

    /** A copy of these attributes. */
    public FabricAttr copy() {
        FabricAttr c = new FabricAttr();
        c.name = name;
        c.provName = provName;
        c.provVersion = provVersion;
        c.apiVersion = apiVersion;
        return c;
    }

    /** Equal when every field is equal. */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o == null || o.getClass() != getClass()) {
            return false;
        }
        FabricAttr other = (FabricAttr) o;
        return Objects.equals(name, other.name) && Objects.equals(provName, other.provName)
                && provVersion == other.provVersion && apiVersion == other.apiVersion;
    }

    @Override
    public int hashCode() {
        int h = 17;
        h = 31 * h + Objects.hashCode(name);
        h = 31 * h + Objects.hashCode(provName);
        h = 31 * h + provVersion;
        h = 31 * h + apiVersion;
        return h;
    }

    /** Appends the {@code fi_tostr} rendering, each line starting with {@code prefix}. */
    void appendTo(StringBuilder sb, String prefix) {
        String p = prefix + AttrFormat.TAB;
        sb.append(prefix).append("fi_fabric_attr:\n");
        AttrFormat.line(sb, p, "name", AttrFormat.str(name));
        AttrFormat.line(sb, p, "prov_name", AttrFormat.str(provName));
        AttrFormat.line(sb, p, "prov_version", AttrFormat.version(provVersion));
        AttrFormat.line(sb, p, "api_version", AttrFormat.version(apiVersion));
    }

    /**
     * The attributes as {@code fi_tostr(FI_TYPE_FABRIC_ATTR)} prints them: {@code fi_fabric_attr:} and one
     * indented line per field.
     */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(256);
        appendTo(sb, "");
        sb.setLength(sb.length() - 1); // no trailing newline
        return sb.toString();
    }
}
