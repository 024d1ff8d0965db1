package io.jofi.provider.tcp.interop;

import io.jofi.Fabrics;
import io.jofi.tools.CapturedRun;
import java.util.List;

/** A child JVM's {@code pingpong} (the tools' command in-process), its output on its own streams: what {@link PeerKindRecompileTest} runs under a compilation log. */
public final class PingpongChild {
    private PingpongChild() {
    }

    public static void main(String[] args) {
        CapturedRun run = CapturedRun.of("pingpong", List.of(args), Fabrics.standalone());
        System.out.print(run.out());
        System.err.print(run.err());
        System.out.flush();
        System.exit(run.status());
    }
}
