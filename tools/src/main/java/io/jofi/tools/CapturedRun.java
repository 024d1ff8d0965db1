package io.jofi.tools;

import io.jofi.Fabrics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One command run in this JVM with what it printed captured: for programs and tests that drive
 * the tools without a console (the providers' choreography tests run {@code pingpong},
 * {@code bw} and {@code rma_bw} this way against C peers), and the comparison of its fabtests
 * table with another program's.
 *
 * @param status the {@link ExitStatus}
 * @param out    what it printed on standard output
 * @param err    what it printed on standard error
 */
public record CapturedRun(int status, String out, String err) {
    /** Runs {@code command} with {@code args} against {@code fabrics} ({@link Commands#run}), output captured. */
    public static CapturedRun of(String command, List<String> args, Fabrics fabrics) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        int status = Commands.run(command, args, new CommandContext(fabrics, null, o, e));
        return new CapturedRun(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The table rows, trimmed: every printed line but blank ones and the header ({@code bytes ...}). */
    public List<String> rows() {
        List<String> rows = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (!line.isBlank() && !line.startsWith("bytes")) {
                rows.add(line.trim());
            }
        }
        return rows;
    }

    /**
     * Where this run's table and the one in {@code otherOutput} (another program's lines, e.g. a
     * fabtests peer's, with its other lines) differ in a row's first three columns — bytes,
     * iterations, total — or in the number of rows; null when they agree.
     */
    public String tableMismatch(List<String> otherOutput) {
        List<String> other = new ArrayList<>();
        for (String line : otherOutput) {
            if (line.matches("^\\d+(\\.\\d)?[kmg]?\\s+\\d+[kmb]?\\s+.*")) {
                other.add(line.trim());
            }
        }
        List<String> mine = rows();
        if (mine.isEmpty() || mine.size() != other.size()) {
            return "rows: " + mine.size() + " here, " + other.size() + " there:\n" + out + "--- there:\n"
                    + String.join("\n", otherOutput);
        }
        for (int i = 0; i < mine.size(); i++) {
            String[] m = mine.get(i).split("\\s+");
            String[] o = other.get(i).split("\\s+");
            for (int col = 0; col < 3; col++) {
                if (m.length <= col || o.length <= col || !m[col].equals(o[col])) {
                    return "bytes/iters/total of row " + i + ": here '" + mine.get(i) + "', there '" + other.get(i) + "'";
                }
            }
        }
        return null;
    }
}
