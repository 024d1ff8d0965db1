package io.jofi.tools;

/** The settings of {@link SampleProvider} ({@code jofi.sample.*}), for {@code jofi info -e}. */
@interface SampleSettings {
    /** A number. */
    int depth() default 8;

    /** A name. */
    String label() default "";
}
