package io.jofi.provider.shm.ring;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The main class of the child JVMs of the ring tests. Modes:
 * <ul>
 * <li>{@code produce <dir> <name> <sender> <count>}: maps the region and sends {@code count}
 *     records (payload: sender, sequence, a checked filler of varying length), retrying while
 *     full; prints {@code DONE}.</li>
 * <li>{@code own <dir> <name>}: creates a region and its doorbell, prints {@code READY}, then waits to be killed.</li>
 * <li>{@code scribble <dir> <name> <seed> <writes>}: a hostile writer: maps the region file
 *     raw and writes random longs at random offsets (half in the header's first KiB, half in the
 *     ring), then poisons the tail; prints {@code DONE}.</li>
 * <li>{@code claim <dir> <name>}: maps the region, claims a record (sender = its pid), prints
 *     {@code CLAIMED <offset>} and waits to be killed without publishing.</li>
 * <li>{@code sleep <dir> <name>}: creates a region and its doorbell, prints {@code READY},
 *     sleeps on the doorbell until a record arrives, prints {@code GOT <value>} and exits.</li>
 * </ul>
 */
public final class RingChild {

    /** Record type of the stress records. */
    static final int TYPE = 7;

    private RingChild() {
    }

    public static void main(String[] args) throws Exception {
        final Path dir = Path.of(args[1]);
        final String name = args[2];
        switch (args[0]) {
            case "produce" -> produce(dir, name, Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            case "own" -> {
                try (ShmRegion region = ShmRegion.create(dir, name, ShmRegionTest.SMALL);
                     Doorbell doorbell = Doorbell.bind(region.doorbellPath())) {
                    System.out.println("READY " + region.ownerPid());
                    Thread.sleep(TimeUnit.SECONDS.toMillis(ChildJvm.TIMEOUT_SECONDS));
                }
            }
            case "sleep" -> sleep(dir, name);
            case "claim" -> {
                try (ShmRegion region = ShmRegion.map(dir, name)) {
                    int index = region.ring().claim(TYPE, (int) ProcessLiveness.selfPid(), 0, 64);
                    System.out.println("CLAIMED " + index);
                    Thread.sleep(TimeUnit.SECONDS.toMillis(ChildJvm.TIMEOUT_SECONDS)); // never publishes
                }
            }
            case "scribble" -> scribble(dir, name, Long.parseLong(args[3]), Integer.parseInt(args[4]));
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    /** Payload bytes of record {@code seq}: 16 (sender, seq) plus 0..199 filler bytes. */
    static int payloadLength(long seq) {
        return 16 + (int) (seq * 31 % 200);
    }

    /** The filler byte at {@code i} of record {@code seq} of {@code sender}. */
    static byte filler(int sender, long seq, int i) {
        return (byte) (sender * 7 + seq + i);
    }

    private static void produce(Path dir, String name, int sender, int count) throws Exception {
        try (ShmRegion region = ShmRegion.map(dir, name);
             DoorbellRinger bell = DoorbellRinger.connect(region.doorbellPath())) {
            final MpscRing ring = region.ring();
            final ByteBuffer buffer = ring.buffer();
            long full = 0;
            for (long seq = 0; seq < count; seq++) {
                final int length = payloadLength(seq);
                int index;
                while ((index = ring.claim(TYPE, sender, 0, length)) == MpscRing.FULL) {
                    full++;
                    Thread.yield();
                }
                if (index < 0) {
                    throw new IllegalStateException("claim answered " + index);
                }
                final int payload = index + RingDescriptor.HEADER_LENGTH;
                buffer.putLong(payload, sender);
                buffer.putLong(payload + 8, seq);
                for (int i = 16; i < length; i++) {
                    buffer.put(payload + i, filler(sender, seq, i));
                }
                if (ring.publish(index)) {
                    bell.ring();
                }
            }
            System.out.println("DONE " + sender + " full=" + full);
        }
    }

    private static void sleep(Path dir, String name) throws Exception {
        try (ShmRegion region = ShmRegion.create(dir, name, ShmRegionTest.SMALL);
             Doorbell doorbell = Doorbell.bind(region.doorbellPath())) {
            final MpscRing ring = region.ring();
            final long[] got = {Long.MIN_VALUE};
            final RecordHandler handler = (type, sender, aux, buffer, offset, length) -> {
                got[0] = buffer.getLong(offset);
                return RecordHandler.CONTINUE;
            };
            System.out.println("READY");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ChildJvm.TIMEOUT_SECONDS);
            int wakeups = 0;
            while (got[0] == Long.MIN_VALUE && System.nanoTime() < deadline) {
                if (ring.read(handler, 16) > 0) {
                    break;
                }
                if (ring.prepareToSleep()) {
                    // Said only once the re-check found the ring empty: a record published from
                    // now on must come with a ring of the doorbell (which a socket keeps until
                    // the await below reads it), so the parent's test is not a race.
                    System.out.println("SLEEPING");
                    if (doorbell.await(TimeUnit.SECONDS.toNanos(ChildJvm.TIMEOUT_SECONDS))) {
                        wakeups++;
                    }
                }
                ring.awake();
            }
            System.out.println("GOT " + got[0] + " wakeups=" + wakeups);
        }
    }

    private static void scribble(Path dir, String name, long seed, int writes) throws Exception {
        final java.util.Random random = new java.util.Random(seed);
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(
                ShmRegion.regionPath(dir, name), java.nio.file.StandardOpenOption.READ,
                java.nio.file.StandardOpenOption.WRITE)) {
            final java.nio.MappedByteBuffer raw = channel.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0,
                    channel.size());
            raw.order(java.nio.ByteOrder.LITTLE_ENDIAN);
            final int ringOffset = raw.getInt(RegionDescriptor.HEADER_LENGTH_OFFSET);
            final int capacity = raw.getInt(RegionDescriptor.RING_CAPACITY_OFFSET);
            System.out.println("SCRIBBLING");
            for (int i = 0; i < writes; i++) {
                final int offset = random.nextBoolean()
                        ? random.nextInt(1024 - 8)
                        : ringOffset + random.nextInt(capacity - 8);
                final long value = switch (random.nextInt(4)) {
                    case 0 -> random.nextLong();
                    case 1 -> random.nextInt(capacity * 2) - capacity; // plausible lengths and counters
                    case 2 -> 0;
                    default -> -random.nextInt(64);
                };
                raw.putLong(offset, value);
                if ((i & 1023) == 0) {
                    Thread.yield();
                }
            }
            // A tail behind any head: every consumer must declare the ring failed now.
            raw.putLong(RegionDescriptor.TAIL_OFFSET, Long.MIN_VALUE / 2);
        }
        System.out.println("DONE");
    }
}
