package io.jofi.spi.util;

/**
 * One setting of a provider as {@code jofi info -e} lists it (as {@code fi_info -e} lists
 * libfabric's variables): its system property name, type, default, the value in effect and
 * the description of its metatype.
 *
 * @param name         the system property, {@code jofi.<provider>.<attribute>}
 * @param type         {@code Integer}, {@code Long}, {@code Boolean} or {@code String}
 * @param defaultValue the default of the property type, as text
 * @param value        the value in effect now, as text
 * @param description  the metatype's description; empty when the bundle carries no metatype
 */
public record ProviderSetting(String name, String type, String defaultValue, String value, String description) {
}
