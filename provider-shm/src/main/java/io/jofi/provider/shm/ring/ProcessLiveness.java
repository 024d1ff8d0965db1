package io.jofi.provider.shm.ring;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Who a process is and whether it still runs. A process is identified by its pid AND its start
 * time, so a pid reused by a later process does not count as the region's owner. The start
 * time is field 22 of {@code /proc/<pid>/stat} (clock ticks since boot): exact, the same for
 * every reader, used both when writing a region header and when checking it. A zombie (state
 * Z or X: killed, not yet reaped) counts as dead.
 */
public final class ProcessLiveness {

    /** {@link #startTime} of a process that does not exist (or is a zombie). */
    public static final long NO_PROCESS = -1;

    private static final long SELF_PID = ProcessHandle.current().pid();
    private static volatile long selfStartTime = NO_PROCESS;

    private ProcessLiveness() {
    }

    /** @return this process's pid */
    public static long selfPid() {
        return SELF_PID;
    }

    /** @return this process's start time ({@link #startTime} of {@link #selfPid()}) */
    public static long selfStartTime() {
        long start = selfStartTime;
        if (start == NO_PROCESS) {
            start = startTime(SELF_PID);
            if (start == NO_PROCESS) {
                throw new IllegalStateException("cannot read /proc/" + SELF_PID + "/stat: shm needs Linux /proc");
            }
            selfStartTime = start;
        }
        return start;
    }

    /**
     * @return the start time of {@code pid} (clock ticks since boot), or {@link #NO_PROCESS}
     *         when there is no such live process
     */
    public static long startTime(long pid) {
        if (pid <= 0) {
            return NO_PROCESS;
        }
        final String stat;
        try {
            stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return NO_PROCESS;
        } catch (IOException e) {
            return NO_PROCESS; // vanished while reading
        }
        // "pid (comm) state ppid ...": comm may hold spaces and parentheses; fields resume after the last ')'.
        final int close = stat.lastIndexOf(')');
        if (close < 0) {
            return NO_PROCESS;
        }
        final String[] fields = stat.substring(close + 2).trim().split(" ");
        // fields[0] is field 3 (state); field 22 is fields[19].
        if (fields.length < 20) {
            return NO_PROCESS;
        }
        if (fields[0].equals("Z") || fields[0].equals("X")) {
            return NO_PROCESS;
        }
        try {
            return Long.parseLong(fields[19]);
        } catch (NumberFormatException e) {
            return NO_PROCESS;
        }
    }

    /**
     * Whether the process {@code pid} is stopped: state T (by a signal such as {@code SIGSTOP})
     * or t (by a tracer) in {@code /proc/<pid>/stat}. A process that does not exist is not
     * stopped. Reads the file: not for a data path.
     */
    public static boolean isStopped(long pid) {
        if (pid <= 0) {
            return false;
        }
        final String stat;
        try {
            stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return false; // gone, or vanished while reading
        }
        final int close = stat.lastIndexOf(')');
        if (close < 0 || close + 2 >= stat.length()) {
            return false;
        }
        final char state = stat.charAt(close + 2);
        return state == 'T' || state == 't';
    }

    /** @return whether the process {@code pid} started at {@code startTime} still runs */
    public static boolean isAlive(long pid, long startTime) {
        return startTime != NO_PROCESS && startTime(pid) == startTime;
    }

    /**
     * @return this process's (effective) uid: the owner of {@code /proc/self}
     * @throws IOException when /proc cannot tell
     */
    public static int selfUid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }
}
