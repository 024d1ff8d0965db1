package io.jofi.rsa.itests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Not a test: the measurement behind {@code benchmarks/compare-rsa.sh} (runs only when
 * {@code jofi.rsa.bench.millis} is set). Two forked Felix containers on this host; the exporter
 * exports one echo service per contender — Aries {@code aries.tcp}, Aries {@code aries.fastbin},
 * JOFI over tcp, JOFI over shm — the importer imports all four through endpoint files and calls
 * each with 1 and 16 callers at 64 B, 4 KiB and 1 MiB, contenders alternated (rotated each round),
 * each cell the median of its rounds. Prints a Markdown table with calls/s, p50 and the ratios
 * and writes it to {@code target/rsa-bench.md}.
 */
@EnabledIfSystemProperty(named = "jofi.rsa.bench.millis", matches = "[0-9]+")
class RsaBenchmarkIT {
    private static final String[] CONTENDERS = {"aries-tcp", "aries-fastbin", "jofi-tcp", "jofi-shm"};
    private static final int[] CALLERS = {1, 16};
    private static final int[] SIZES = {64, 4096, 1 << 20};

    @Test
    void compareTransports() throws Exception {
        long millis = Long.getLong("jofi.rsa.bench.millis");
        int rounds = Integer.getInteger("jofi.rsa.bench.rounds", 3);
        Path work = Harness.workDirectory("RsaBenchmarkIT");
        int fastbinImporter = Harness.freePort();
        CompletableFuture<Container> startingImporter = CompletableFuture.supplyAsync(() -> start("importer", work, fastbinImporter));
        try (Container exporter = start("exporter", work, Harness.freePort()); Container importer = startingImporter.join()) {
            exporter.call("export aries.tcp bench.contender=aries-tcp aries.rsa.hostname=127.0.0.1 aries.rsa.port=" + Harness.freePort());
            exporter.call("export aries.fastbin bench.contender=aries-fastbin");
            exporter.call("export io.jofi bench.contender=jofi-tcp io.jofi.provider=tcp");
            exporter.call("export io.jofi bench.contender=jofi-shm io.jofi.provider=shm");
            Harness.discoverByFiles(exporter, importer, work);
            for (String contender : CONTENDERS) {
                importer.call("imported 30000 " + contender);
                importer.call("bench 1 " + Math.max(500, millis) + " 64 " + contender);
            }
            Map<String, double[]> table = new LinkedHashMap<>();
            for (int callers : CALLERS) {
                for (int size : SIZES) {
                    Map<String, List<double[]>> samples = new LinkedHashMap<>();
                    for (int round = 0; round < rounds; round++) {
                        for (int i = 0; i < CONTENDERS.length; i++) {
                            String contender = CONTENDERS[(i + round) % CONTENDERS.length];
                            Map<String, String> answer = JofiCallsContract.fields(
                                    importer.call("bench " + callers + " " + millis + " " + size + " " + contender, 300_000));
                            samples.computeIfAbsent(contender, key -> new ArrayList<>()).add(new double[] {
                                Double.parseDouble(answer.get("rate")), Double.parseDouble(answer.get("p50us"))});
                        }
                    }
                    for (String contender : CONTENDERS) {
                        table.put(callers + "/" + size + "/" + contender, median(samples.get(contender)));
                    }
                }
            }
            String markdown = render(table, millis, rounds);
            System.out.println(markdown);
            Files.writeString(Path.of(System.getProperty("jofi.rsa.work", "target/rsa-work")).resolveSibling("rsa-bench.md"),
                    markdown, StandardCharsets.UTF_8);
        }
    }

    private static double[] median(List<double[]> rounds) {
        double[] rates = rounds.stream().mapToDouble(r -> r[0]).sorted().toArray();
        double[] p50s = rounds.stream().mapToDouble(r -> r[1]).sorted().toArray();
        return new double[] {rates[rates.length / 2], p50s[p50s.length / 2]};
    }

    private static String render(Map<String, double[]> table, long millis, int rounds) {
        StringBuilder out = new StringBuilder();
        out.append("Date: ").append(ZonedDateTime.now(ZoneOffset.UTC).withNano(0).format(DateTimeFormatter.ISO_LOCAL_DATE_TIME))
                .append(" UTC; ").append(rounds).append(" rounds of ").append(millis)
                .append(" ms per cell, contenders rotated each round, medians; two Felix JVMs on one host, ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores.\n\n");
        out.append("| callers | size | aries.tcp calls/s (p50 us) | aries.fastbin | JOFI tcp | JOFI shm "
                + "| shm / aries.tcp | shm / best Aries | JOFI tcp / aries.tcp |\n");
        out.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int callers : CALLERS) {
            for (int size : SIZES) {
                double[][] cells = Arrays.stream(CONTENDERS).map(c -> table.get(callers + "/" + size + "/" + c)).toArray(double[][]::new);
                out.append("| ").append(callers).append(" | ").append(size(size)).append(" |");
                for (double[] cell : cells) {
                    out.append(String.format(" %.0f (%.1f) |", cell[0], cell[1]));
                }
                double bestAries = Math.max(cells[0][0], cells[1][0]);
                out.append(String.format(" %.2f | %.2f | %.2f |%n", cells[3][0] / cells[0][0], cells[3][0] / bestAries,
                        cells[2][0] / cells[0][0]));
            }
        }
        return out.toString();
    }

    private static String size(int bytes) {
        return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : bytes >= 1024 ? (bytes >> 10) + " KiB" : bytes + " B";
    }

    private static Container start(String name, Path work, int fastbinPort) {
        try {
            return Container.builder(name, work)
                    .config("org.apache.aries.rsa.provider.fastbin", "uri", "tcp://127.0.0.1:" + fastbinPort)
                    .config("org.apache.aries.rsa.provider.fastbin", "exportedAddress", "127.0.0.1")
                    .fullCompiler()
                    .jvmArgument("-Xmx1g")
                    .bundles(Harness.concat(Harness.ariesCore(), Harness.ariesTcp(), Harness.ariesFastbin(), Harness.jofi()))
                    .start();
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
