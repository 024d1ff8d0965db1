package io.jofi.tools;

import io.jofi.EpType;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.Progress;
import java.util.List;
import picocli.CommandLine;

/**
 * The options and the flow shared by {@code pingpong} and {@code bw}: fabtests' option letters
 * and defaults (docs/TCP-WIRE.md, "fabtests' fi_msg_pingpong choreography"), getInfo for the
 * requested endpoint type, the connection ({@link PerfConnection}), one run per size, then
 * fabtests' finalize. A subclass supplies the timed pattern of one size.
 */
public abstract class PerfCommand extends Command {
    /** fabtests' default sizes without {@code -S}. */
    static final int[] DEFAULT_SIZES = {64, 256, 1024, 4096, 65536, 1 << 20};
    /** fabtests' largest size of {@code -S all}; also the buffer without {@code -S}. */
    static final int MAX_SIZE = 8 << 20;

    @CommandLine.Option(names = "-p", paramLabel = "PROV", description = "Provider name (default: the first that getInfo returns).")
    String provider;

    @CommandLine.Option(names = "-e", paramLabel = "msg|rdm",
            description = "Endpoint type (default: the provider's only one, e.g. rdm for shm; else msg).")
    String endpointType;

    @CommandLine.Option(names = "-S", paramLabel = "SIZE|all", description = "One message size (k/m/g suffixes) or 'all' (default: 64, 256, 1k, 4k, 64k, 1m).")
    String size;

    @CommandLine.Option(names = "-I", paramLabel = "ITERS", defaultValue = "-1",
            description = "Timed iterations (default: as fabtests for the size; describeDefaults).")
    long iterations;

    @CommandLine.Option(names = "-w", paramLabel = "WARMUP", defaultValue = "10", description = "Untimed warm-up iterations (default 10).")
    long warmup;

    @CommandLine.Option(names = "-c", paramLabel = "spin|sread|fd|yield", defaultValue = "spin",
            description = "Completion wait: spin (busy read, manual progress), sread (UNSPEC wait object), fd (FD wait object, Selector, tryWait), yield (YIELD wait object).")
    CompletionWait completionWait;

    @CommandLine.Option(names = "-B", paramLabel = "PORT", defaultValue = "9228", description = "Source port of the server (default 9228).")
    String sourcePort;

    @CommandLine.Option(names = "-P", paramLabel = "PORT", defaultValue = "9228", description = "Destination port of the client (default 9228).")
    String destinationPort;

    @CommandLine.Option(names = "-s", paramLabel = "ADDR", description = "Source address of the server (default: any).")
    String sourceAddress;

    @CommandLine.Option(names = "-m", description = "Machine-readable output (fabtests' -m).")
    boolean machine;

    @CommandLine.Option(names = "-v", description = {"fabtests' data check: every message carries fabtests' pattern and every message fabtests checks"
            + " is checked on receipt; a wrong byte fails the run with 'Data check error'."})
    boolean verifyData;

    @CommandLine.Option(names = "--percentiles", description = "Also print latency percentiles p50, p99, p99.9, the maximum and the iterations of 1 ms or more per size"
            + " (and, on stderr, the JIT warm-up's duration and when the timed iterations start).")
    boolean percentiles;

    @CommandLine.Option(names = "--tagged", description = "Tagged messages (FI_TAGGED, each message's tag its ordinal in its direction), as fabtests' fi_rdm_tagged_* tests.")
    boolean tagged;

    @CommandLine.Option(names = "--jit-warmup", paramLabel = "MESSAGES", defaultValue = "-1",
            description = {"Once the measured connection is made (and before its first message), send about this many messages per warm-up connection (split across the sizes,"
                    + " fewer for sizes above 4k) with the same pattern over private loopback connections inside this JVM (" + WARM_UP_ROUNDS + ", one after the other),"
                    + " so that the JIT has compiled the data path before the timed run; nothing of it reaches the peer"
                    + " (default: as many as the timed run sends, at most " + AUTO_JIT_WARMUP + "; 0: off, as fabtests,"
                    + " whose C code needs no warm-up). With it on, the timed iterations of each size start once the JIT"
                    + " has compiled nothing for 200 ms (at most 5 s after the untimed ones), so that recompilations do not"
                    + " stall the timed run."})
    long jitWarmup;

    /** The most messages the default JIT warm-up sends (C2 compiles hot code after about 10^4 calls). */
    static final long AUTO_JIT_WARMUP = 20_000;

    /** The fewest warm-up messages a size above 4 KiB gets (when the warm-up has that many per size). */
    static final long LARGE_WARMUP_MESSAGES = 10_000;

    @CommandLine.Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60", description = "Bound on any single wait (default 60).")
    int timeoutSeconds;

    @CommandLine.Parameters(arity = "0..1", paramLabel = "SERVER", description = "The server's address (client); none: be the server.")
    String destination;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The command's name in messages. */
    abstract String name();

    /** How many receives each side keeps posted. */
    abstract int receiveDepth();

    /** How many sends may be outstanding at once. */
    abstract int sendDepth();

    /** Messages one iteration of the pattern sends from the client (the JIT warm-up's unit). */
    abstract int messagesPerIteration();

    /**
     * After the connection is made (and in each JIT warm-up connection): what the choreography
     * exchanges before the first size (rma_bw: the keys of the target regions). Nothing here.
     */
    void prepare(PerfConnection c) throws FabricException {
    }

    /** Checks the options against the endpoint getInfo chose (bw: the window against its queues). */
    void checkAgainst(Info info) {
    }

    /** Capabilities the command needs beyond sending and receiving messages (rma_bw: RMA). */
    long extraCaps() {
        return 0;
    }

    /** fabtests' default iterations of a size (its size_to_count). */
    long defaultIterations(int size) {
        return size >= (1 << 20) ? 100 : size >= (1 << 16) ? 1000 : 10000;
    }

    /**
     * Writes this command's own {@code -I} defaults ({@link #defaultIterations}, which bw and
     * rma_bw double) into {@code spec}'s help, so that {@code --help} cannot drift from them.
     */
    void describeDefaults(CommandLine.Model.CommandSpec spec) {
        CommandLine.Model.OptionSpec option = spec.findOption("-I");
        String help = "Timed iterations (default: " + defaultIterations(64) + " below 64k, "
                + defaultIterations(1 << 16) + " below 1m, " + defaultIterations(1 << 20) + " from 1m).";
        spec.remove(option);
        spec.addOption(CommandLine.Model.OptionSpec.builder(option).description(help).build());
    }

    /**
     * Runs one size after the sync: {@code warmup} untimed then {@code iterations} timed
     * iterations in the role {@code client}; prints its row through {@code report} (none, and
     * no progress line, when {@code report} is null: the JIT warm-up).
     */
    abstract void runSize(PerfConnection c, boolean client, int size, long iterations, long warmup, PerfReport report);

    @Override
    protected int execute() throws Exception {
        int[] sizes = sizes();
        if (warmup < 0) {
            throw new CommandFailure("-w must be >= 0, got " + warmup, ExitStatus.USAGE);
        }
        if (iterations == 0 || iterations < -1) {
            throw new CommandFailure("-I must be > 0, got " + iterations, ExitStatus.USAGE);
        }
        if (jitWarmup < -1) {
            throw new CommandFailure("--jit-warmup must be >= 0, got " + jitWarmup, ExitStatus.USAGE);
        }
        if (jitWarmup == -1) {
            long timed = 0;
            for (int s : sizes) {
                timed += (iterations > 0 ? iterations : defaultIterations(s)) * messagesPerIteration();
            }
            jitWarmup = Math.min(AUTO_JIT_WARMUP, timed);
        }
        Fabrics fabrics = context().requireFabrics();
        if (endpointType == null) {
            endpointType = defaultEndpointType(fabrics);
        }
        boolean client = destination != null;
        Info info = client ? findInfo(fabrics, true, destination, destinationPort)
                : findInfo(fabrics, false, sourceAddress, sourcePort);
        checkAgainst(info);
        // fabtests: the largest size of the list, at least its control message of 256 bytes
        int bufferSize = size == null ? MAX_SIZE : Math.max(256, java.util.Arrays.stream(sizes).max().orElse(256));
        PerfReport report = new PerfReport(out(), machine, percentiles, String.join(" ", spec.commandLine().getParseResult().originalArgs()), name());
        // Listen or connect first, warm the JIT up after: a busy port, an absent server or a
        // wrong address fails at once, not after seconds of warm-up. The peer waits for this
        // side's warm-up in the first sync (bounded by --timeout); it sees fabtests' bytes only.
        Runnable listening = client ? null : () -> context().err().printf("%s: listening (%s %s, %s-B %s); waiting for"
                + " the client (at most --timeout %d s): the same command with this host's address as its last argument%n",
                name(), info.fabricAttr().provName(), endpointType, sourceAddress == null ? "" : "-s " + sourceAddress + " ",
                sourcePort, timeoutSeconds);
        PerfConnection connection;
        // no wait is silent: the server said it listens; a client whose connect lasts says so
        try (StillWaiting connecting = client ? stillWaiting("connecting to " + destination.replace("%", "%%") + " -P " + destinationPort.replace("%", "%%")
                + ", %d s so far (is the server running there?", StillWaiting.FIRST_NOTICE_MILLIS) : null) {
            connection = PerfConnection.open(fabrics, info, client, tagged, completionWait, bufferSize,
                    receiveDepth(), sendDepth(), timeoutSeconds * 1_000_000_000L, context().err(), listening);
        }
        try (PerfConnection c = connection) {
            if (jitWarmup != 0) {
                // announced by warmUp; on a loaded machine it takes longer than "a few seconds": say it still runs
                try (StillWaiting warming = stillWaiting("still warming up the JIT, %d s so far (--jit-warmup 0 skips it",
                        StillWaiting.INTERVAL_MILLIS)) {
                    // its private endpoints and queues show as "(JIT warm-up)" in jofi stat
                    io.jofi.spi.util.stats.CounterGroup.marked("JIT warm-up", () -> warmUp(fabrics, info, sizes, bufferSize));
                }
            }
            // the first exchange waits for the peer's own warm-up (as long as its --jit-warmup makes it)
            try (StillWaiting peer = stillWaiting("connected; waiting for the peer's first message, %d s so far"
                    + " (it may still be warming up its JIT", StillWaiting.FIRST_NOTICE_MILLIS)) {
                prepare(c);
                c.sync();
            }
            for (int i = 0; i < sizes.length; i++) {
                long iters = iterations > 0 ? iterations : defaultIterations(sizes[i]);
                if (i > 0) {
                    c.sync();
                }
                runSize(c, client, sizes[i], iters, warmup, report);
            }
            c.finish();
        }
        return ExitStatus.OK;
    }

    /**
     * The notices of a long step ({@link StillWaiting}): {@code "<name>: " + what} after
     * {@code firstMillis}, then every few seconds; {@code what} ends inside a parenthesis that this
     * closes with the bound of the wait.
     */
    private StillWaiting stillWaiting(String what, long firstMillis) {
        return StillWaiting.start(context().err(), name() + ": " + what + "; --timeout " + timeoutSeconds
                + " bounds each wait)", firstMillis, StillWaiting.INTERVAL_MILLIS);
    }

    /**
     * The JIT warm-up ({@code --jit-warmup}): a server thread and this thread run the pattern
     * of every size over a private connection on 127.0.0.1 (a free port; see {@link #warmUpHost}
     * for providers that cannot use loopback) with the same provider,
     * endpoint type and completion wait, so that the provider's and this command's data path
     * are compiled before the measured run. Its two ends wait as the measured run waits (the
     * code compiled is then exactly the measured one), except that a spinning end gives the
     * processor away ({@code Thread.yield}) after every 64th empty CQ read: the two ends are threads
     * of one JVM, on one core when the process is pinned, and a pure spin would hold that core
     * while the other end has the message to answer (a warm-up of seconds then takes minutes).
     * Bounded by the command's timeout; a failure is
     * reported on stderr and the measured run goes on without it (the figures are then those
     * of a cold JVM).
     */
    private void warmUp(Fabrics fabrics, Info measured, int[] sizes, int bufferSize) {
        long started = System.nanoTime();
        String host = LOOPBACK;
        // the warm-up takes seconds with nothing else to show: say so once, and how to skip it
        context().err().printf("%s: warming up the JIT first: %d messages over a private connection in this JVM,"
                + " a few seconds (--jit-warmup 0 skips it)%n", name(), jitWarmup * WARM_UP_ROUNDS);
        try {
            for (int round = 0; round < WARM_UP_ROUNDS; round++) {
                host = warmUpRound(fabrics, measured, sizes, bufferSize);
            }
            long compilerMs = awaitQuietCompiler();
            if (percentiles) {
                // the uptime splits a compilation log (-XX:+LogCompilation stamps) into warm-up and measured run
                context().err().printf("%s: JIT warm-up over %s took %d ms (%d connections, then %d ms for the compiler to finish),"
                        + " ended after JVM uptime %d ms%n", name(), LOOPBACK.equals(host) ? "loopback" : host,
                        (System.nanoTime() - started) / 1_000_000L, WARM_UP_ROUNDS, compilerMs,
                        java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime());
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            context().err().println(name() + ": JIT warm-up skipped (" + e.getMessage()
                    + "); the first iterations run in the interpreter");
        }
    }

    /**
     * Connections the JIT warm-up makes one after the other, each running the whole pattern.
     * One is not enough: C2 compiles what the first connection's steady state did, and the
     * first messages of a new connection take branches that steady state never takes (a new
     * endpoint's empty pools and caches, the first mapping of the peer's region, the RDM
     * server learning its client from an {@code EADDRNOTAVAIL} completion). The measured
     * connection then hit them as uncommon traps: ~15 hot methods deoptimized
     * (LogCompilation: {@code unstable_if} in {@code ShmEndpoint.peerOf}, {@code linked},
     * {@code takeOp}, {@code Peer.fiAddrIn}, {@code PerfConnection.awaitCompletion}, ...),
     * recompiled while the timed iterations ran. The second connection takes those branches
     * while the JIT warm-up still runs, and C2 recompiles with them.
     */
    static final int WARM_UP_ROUNDS = 2;

    /** One connection of the JIT warm-up; returns the host it used. */
    private String warmUpRound(Fabrics fabrics, Info measured, int[] sizes, int bufferSize) throws Exception {
        long timeout = timeoutSeconds * 1_000_000_000L;
        java.io.PrintStream quiet = new java.io.PrintStream(java.io.OutputStream.nullOutputStream());
        java.util.concurrent.CountDownLatch listening = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Throwable> serverFailure = new java.util.concurrent.atomic.AtomicReference<>();
        Thread server = null;
        try {
            String port = Integer.toString(freeLoopbackPort());
            String host = warmUpHost(fabrics, measured, port);
            Info serverInfo = findInfo(fabrics, false, host, port);
            Info clientInfo = findInfo(fabrics, true, host, port);
            server = new Thread(() -> {
                try (PerfConnection s = PerfConnection.open(fabrics, serverInfo, false, tagged, completionWait, bufferSize,
                        receiveDepth(), sendDepth(), timeout, quiet, listening::countDown)) {
                    s.yieldWhenIdle();
                    prepare(s);
                    s.transmitCompleteExchange();
                    warmUpSizes(s, false, sizes);
                    s.finish();
                } catch (Throwable e) {
                    serverFailure.set(e);
                } finally {
                    listening.countDown();
                }
            }, "jofi-" + name() + "-jit-warmup");
            server.setDaemon(true);
            server.start();
            if (!listening.await(timeoutSeconds, java.util.concurrent.TimeUnit.SECONDS) || serverFailure.get() != null) {
                throw new CommandFailure("the warm-up server did not listen"
                        + (serverFailure.get() == null ? "" : ": " + serverFailure.get().getMessage()));
            }
            try (PerfConnection c = PerfConnection.open(fabrics, clientInfo, true, tagged, completionWait, bufferSize,
                    receiveDepth(), sendDepth(), timeout, quiet, null)) {
                c.yieldWhenIdle();
                prepare(c);
                c.transmitCompleteExchange();
                warmUpSizes(c, true, sizes);
                c.finish();
            }
            server.join(timeout / 1_000_000L);
            if (serverFailure.get() != null) {
                throw new CommandFailure(serverFailure.get().getMessage());
            }
            return host;
        } finally {
            if (server != null && server.isAlive()) {
                server.interrupt();
            }
        }
    }

    /**
     * The iteration in which {@link #settleBeforeTiming} runs: the last untimed one
     * ({@code warmup - 1}), at the point where this side is about to send (the client before
     * its message or window, the server before its answer), so that the peer waits for this
     * side's pause while it is not timing either; -1 without untimed iterations (then it runs
     * before the first timed one). Settling between the untimed and the timed iterations, as
     * before, let each side start its clock after its own pause: the client's first timed
     * message found the server still pausing whenever the server's compiler took one
     * 200 ms step longer to go quiet than the client's, and that iteration took 200 ms (seen as
     * a 100 ms maximum at 1 MiB over tcp, {@code perf sched timehist}).
     */
    static long settleIteration(long warmup) {
        return warmup > 0 ? warmup - 1 : -1;
    }

    /**
     * Before the timed iterations of a size (see {@link #settleIteration} for where), with the JIT warm-up
     * on: waits for the compiler to go quiet ({@link #awaitQuietCompiler}). The measured
     * connection takes branches the private warm-up pair did not (its set-up, the progress
     * line, the peer's first message), so the JIT throws away and recompiles some of the hot
     * code during the first iterations on it; recompiling on the core the spinning thread
     * needs stalled it for milliseconds (fabtests' mean several times the median). Untimed
     * iterations give the profile; this pause lets the recompilation finish before the clock
     * starts. The peer just waits for the next message meanwhile. With {@code --percentiles} it says on
     * stderr at which JVM uptime the timed iterations start, so that a compilation log
     * ({@code JOFI_JAVA_OPTS="-XX:+PrintCompilation"}, whose first column is the uptime in ms)
     * can be split into the untimed and the timed part.
     */
    void settleBeforeTiming() {
        if (jitWarmup != 0) {
            try {
                awaitQuietCompiler();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (percentiles) {
            context().err().printf("%s: timed iterations start after JVM uptime %d ms%n", name(),
                    java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime());
        }
    }

    /** With {@code --percentiles}: says the JVM uptime at which a size's timed iterations ended (see {@link #settleBeforeTiming}). */
    void timedIterationsEnded() {
        if (percentiles) {
            context().err().printf("%s: timed iterations end after JVM uptime %d ms%n", name(),
                    java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime());
        }
    }

    /**
     * After the warm-up, waits (at most {@value #COMPILER_QUIET_MAX_MS} ms) until the JIT has
     * compiled nothing for {@value #COMPILER_QUIET_MS} ms: the compilations the warm-up queued
     * would otherwise run during the timed run — on the measured process's core when it is
     * pinned, taking it from the spinning thread for milliseconds at a time (seen as a p99.9
     * of ~4 ms at 64 B). Returns the milliseconds waited.
     */
    static long awaitQuietCompiler() throws InterruptedException {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        long start = System.nanoTime();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return 0;
        }
        long last = jit.getTotalCompilationTime();
        while ((System.nanoTime() - start) / 1_000_000L < COMPILER_QUIET_MAX_MS) {
            Thread.sleep(COMPILER_QUIET_MS);
            long now = jit.getTotalCompilationTime();
            if (now == last) {
                break;
            }
            last = now;
        }
        return (System.nanoTime() - start) / 1_000_000L;
    }

    private static final long COMPILER_QUIET_MS = 200;
    private static final long COMPILER_QUIET_MAX_MS = 5_000;

    /**
     * The progress line of {@link #runSize}: on stderr for a measured size ({@code report} not
     * null), printing nowhere but through the same branches for the JIT warm-up.
     */
    ProgressLine progressLine(PerfReport report) {
        return report != null ? new ProgressLine(context().err(), name()) : ProgressLine.forWarmUp(name());
    }

    /**
     * The warm-up pattern: {@link #jitWarmup} messages split across the sizes. Above 4 KiB the
     * count is cut to 4 KiB-equivalents (bytes cost time) but not below
     * {@value #LARGE_WARMUP_MESSAGES} messages: large messages take their own code path
     * (payload read straight into the posted buffer, fragments, bounce slots), and the JIT
     * compiles a method after some 10^4 invocations or loop iterations whatever their size
     * (short 64 KiB runs measured several times slower than long ones).
     */
    private void warmUpSizes(PerfConnection c, boolean client, int[] sizes) {
        long perSize = Math.max(1, jitWarmup / sizes.length);
        for (int s : sizes) {
            long messages = s <= 4096 ? perSize
                    : Math.max(Math.min(perSize, LARGE_WARMUP_MESSAGES), perSize * 4096 / s);
            long iters = Math.max(2, messages / messagesPerIteration());
            c.sync();
            runSize(c, client, s, iters / 2, 0, null);
            // again in the middle, where the data path runs profiled (C1) code: a branch first
            // taken in the interpreter right after a deoptimization is not counted, and C2
            // would compile it away again (seen at 1 MiB over tcp: MessageHeader.encode/decode)
            c.transmitCompleteExchange();
            // and with untimed iterations first, as a measured run has them (-w): the loop's
            // "timed yet?" branch is then compiled both ways, not as a trap the measured run's
            // untimed part would hit (a deoptimization, and a C2 recompilation inside the timed part)
            long rest = iters - iters / 2;
            runSize(c, client, s, rest - rest / 2, rest / 2, null);
        }
        // the small plain messages the timed loop exchanges besides its data (bw's window acks)
        for (long i = controlWarmUpRoundTrips(); i > 0; i--) {
            c.sync();
        }
    }

    /**
     * Round trips of small plain messages ({@link PerfConnection#sync}) the JIT warm-up adds
     * after the sizes, for a command whose timed loop exchanges such messages besides its data
     * (0: none). They are rarer than the data in the measured run: at 64 KiB over shm, bw's acks
     * (one per window) left the small-message path at C1 through the whole warm-up, and C2
     * compiled it during the short timed run, on the pinned spinning thread's core.
     */
    long controlWarmUpRoundTrips() {
        return 0;
    }

    /** Where the JIT warm-up pair meets unless the provider cannot use it ({@link #warmUpHost}). */
    private static final String LOOPBACK = "127.0.0.1";

    /**
     * The host of the JIT warm-up pair: {@value #LOOPBACK} when the provider offers an endpoint
     * bound there (tcp, shm); otherwise — a provider whose endpoints cannot use loopback, such as
     * verbs, whose {@code getInfo} refuses a loopback source address because rdma_cm reaches no
     * RDMA device through {@code lo} — the local address of the measured info: the IP of its
     * {@code srcAddr} (the server's {@code -s} address, the address {@code getInfo} chose for a
     * client), or when that is a wildcard or absent the source address {@code getInfo} chooses
     * with no node; {@value #LOOPBACK} when there is none (the warm-up then fails and is skipped).
     */
    private String warmUpHost(Fabrics fabrics, Info measured, String port) {
        try {
            findInfo(fabrics, false, LOOPBACK, port);
            return LOOPBACK;
        } catch (CommandFailure | FabricException e) {
            // not offered on loopback: the measured info's local address below
        }
        String host = concreteHost(measured.srcAddr());
        if (host == null) {
            try {
                List<Info> infos = fabrics.getInfo(null, null, 0, hints());
                host = infos.isEmpty() ? null : concreteHost(infos.get(0).srcAddr());
            } catch (FabricException e) {
                host = null;
            }
        }
        return host != null ? host : LOOPBACK;
    }

    /** The IP of an IPv4/IPv6 sockaddr that names one host (not a wildcard), or null. */
    private static String concreteHost(byte[] sockaddr) {
        if (sockaddr == null || (sockaddr.length != 16 && sockaddr.length != 28)) {
            return null;
        }
        try {
            java.net.InetSocketAddress a = io.jofi.Addresses.fromSockaddr(sockaddr);
            return a.getAddress().isAnyLocalAddress() ? null : a.getAddress().getHostAddress();
        } catch (IllegalArgumentException e) {
            return null; // another family (e.g. shm's names)
        }
    }

    private static int freeLoopbackPort() throws java.io.IOException {
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        }
    }

    /** Without -e: the one endpoint type -p's provider offers (shm: rdm), else msg as fabtests. */
    private String defaultEndpointType(Fabrics fabrics) {
        if (provider == null) {
            return "msg";
        }
        Info hints = new Info();
        hints.fabricAttr().provName(provider);
        java.util.Set<EpType> types = java.util.EnumSet.noneOf(EpType.class);
        try {
            for (Info info : fabrics.getInfo(null, null, 0, hints)) {
                types.add(info.epAttr().type());
            }
        } catch (FabricException e) {
            return "msg"; // findInfo reports why the provider offers nothing
        }
        return types.equals(java.util.EnumSet.of(EpType.RDM)) ? "rdm" : "msg";
    }

    private Info findInfo(Fabrics fabrics, boolean client, String node, String service) throws FabricException {
        EpType type = switch (endpointType) {
            case "msg" -> EpType.MSG;
            case "rdm" -> EpType.RDM;
            default -> throw new CommandFailure("-e must be msg or rdm, got '" + endpointType + "'", ExitStatus.USAGE);
        };
        Info hints = hints();
        List<Info> infos;
        try {
            infos = client
                    ? fabrics.getInfo(node, service, 0, hints)
                    : fabrics.getInfo(node, service, Fi.FI_SOURCE, hints);
        } catch (FabricException e) {
            if (type == EpType.RDM) {
                throw new CommandFailure("endpoint type rdm (with FI_SOURCE_ERR): not offered by "
                        + (provider == null ? "any provider" : provider) + ": " + e.getMessage());
            } else {
                throw new CommandFailure("getInfo found no " + endpointType + " endpoint"
                        + (provider == null ? "" : " of provider " + provider) + ": " + e.getMessage());
            }
        }
        if (infos.isEmpty()) {
            if (type == EpType.RDM) {
                throw new CommandFailure("endpoint type rdm (with FI_SOURCE_ERR): not offered by "
                        + (provider == null ? "any provider" : provider));
            }
            throw new CommandFailure("getInfo found no msg endpoint" + (provider == null ? "" : " of provider " + provider));
        }
        return infos.get(0);
    }

    /** The hints of the measured endpoint: -e, -p, manual progress for spin. */
    private Info hints() {
        EpType type = "rdm".equals(endpointType) ? EpType.RDM : EpType.MSG;
        // RDM: FI_SOURCE_ERR lets the server learn the client from its first message (R10)
        long messages = tagged ? Fi.FI_TAGGED : Fi.FI_MSG;
        Info hints = new Info().caps(extraCaps() | (type == EpType.RDM ? messages | Fi.FI_SOURCE | Fi.FI_SOURCE_ERR : messages));
        hints.epAttr().type(type);
        // the MR modes the tools handle: RmaPeer sends the region's address as the provider
        // reports it and the provider's key, and every buffer exists before it is registered
        hints.domainAttr().mrMode(Fi.FI_MR_VIRT_ADDR | Fi.FI_MR_ALLOCATED | Fi.FI_MR_PROV_KEY);
        if (provider != null) {
            hints.fabricAttr().provName(provider);
        }
        if (completionWait == CompletionWait.SPIN) {
            hints.domainAttr().dataProgress(Progress.MANUAL);
        }
        return hints;
    }

    private int[] sizes() {
        if (size == null) {
            return DEFAULT_SIZES.clone();
        }
        if (size.regionMatches(true, 0, "all", 0, 3)) {
            // fabtests' full table: powers of two and the 1.5x steps between, up to 8 MiB
            int[] all = new int[64];
            int n = 0;
            for (int s = 1; s <= MAX_SIZE; s <<= 1) {
                all[n++] = s;
                if (s >= 2 && s + s / 2 < MAX_SIZE) {
                    all[n++] = s + s / 2;
                }
            }
            return java.util.Arrays.copyOf(all, n);
        }
        if (size.regionMatches(true, 0, "r:", 0, 2)) {
            return range(size);
        }
        long parsed = parseSize(size);
        if (parsed < 1 || parsed > Integer.MAX_VALUE - 8) {
            throw new CommandFailure("-S must be between 1 and 2g, got '" + size + "'", ExitStatus.USAGE);
        }
        return new int[] {(int) parsed};
    }

    /**
     * fabtests' range {@code r:START,INC,END}: START, START+INC, ... up to END (sizes as
     * {@link #parseSize}, which also takes fabtests' plain numbers).
     */
    static int[] range(String text) {
        String[] parts = text.substring(2).split(",", -1);
        if (parts.length != 3) {
            throw new CommandFailure("-S r:START,INC,END expected, got '" + text + "'", ExitStatus.USAGE);
        }
        long start = parseSize(parts[0]);
        long inc = parseSize(parts[1]);
        long end = parseSize(parts[2]);
        if (start < 1 || inc < 1 || end < start || end > Integer.MAX_VALUE - 8) {
            throw new CommandFailure("-S " + text + ": needs 1 <= START <= END <= 2g and INC >= 1", ExitStatus.USAGE);
        }
        long count = (end - start) / inc + 1;
        if (count > 100_000) {
            throw new CommandFailure("-S " + text + ": " + count + " sizes, at most 100000", ExitStatus.USAGE);
        }
        int[] sizes = new int[(int) count];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = (int) (start + i * inc);
        }
        return sizes;
    }

    /** A size with an optional k/m/g suffix (powers of 1024, as fabtests' parse). */
    static long parseSize(String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        long unit = 1;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'k' -> unit = 1L << 10;
                case 'm' -> unit = 1L << 20;
                case 'g' -> unit = 1L << 30;
                default -> { }
            }
        }
        if (unit != 1) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            return Long.parseLong(t) * unit;
        } catch (NumberFormatException e) {
            throw new CommandFailure("not a size: '" + text + "'", ExitStatus.USAGE);
        }
    }
}
