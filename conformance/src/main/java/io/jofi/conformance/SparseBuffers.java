package io.jofi.conformance;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Large buffers that cost no memory: a mapping of a sparse temporary file, so that a test can
 * hand a provider a buffer longer than {@code max_msg_size} (up to 2 GiB) that the provider
 * must refuse without touching it. Pages that were never touched take no memory or disk.
 */
public final class SparseBuffers {
    private SparseBuffers() {
    }

    /**
     * A direct, writable buffer of {@code n} bytes ({@code n < 2^31}) mapped from a sparse
     * file, which is deleted at once (the mapping stays valid until the buffer is collected).
     */
    public static ByteBuffer of(long n) {
        if (n <= 0 || n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a sparse buffer of " + n + " bytes");
        }
        try {
            Path f = Files.createTempFile("jofi-sparse", ".bin");
            try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
                raf.setLength(n);
                return raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, n);
            } finally {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("mapping a sparse file of " + n + " bytes", e);
        }
    }
}
