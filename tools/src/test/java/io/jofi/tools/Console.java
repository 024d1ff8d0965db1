package io.jofi.tools;

import io.jofi.Fabrics;
import io.jofi.internal.FabricsRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Runs a command against a registry and keeps what it printed. */
final class Console {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final Fabrics fabrics;

    Console(Fabrics fabrics) {
        this.fabrics = fabrics;
    }

    /**
     * Against the plain-JVM registry, {@link Fabrics#standalone()}, which finds this module's
     * test providers ({@link SampleProvider}, {@link DevicelessProvider}) through
     * {@code META-INF/services}.
     */
    static Console withTestProviders() {
        return new Console(Fabrics.standalone());
    }

    /**
     * Against a registry with no provider bound: the api's own registry class, fresh (the
     * standalone one always holds the test providers).
     */
    static Console withoutProviders() {
        return new Console(new FabricsRegistry());
    }

    int run(String... argv) {
        CommandContext context = new CommandContext(fabrics, null,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return Commands.run(argv[0], List.of(argv).subList(1, argv.length), context);
    }

    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
