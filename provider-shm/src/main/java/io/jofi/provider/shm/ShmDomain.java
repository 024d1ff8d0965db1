package io.jofi.provider.shm;

import io.jofi.AddrFormat;
import io.jofi.Endpoint;
import io.jofi.EpType;
import io.jofi.Errno;
import io.jofi.FabricException;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.MemoryRegion;
import io.jofi.Progress;
import io.jofi.provider.shm.ring.Doorbell;
import io.jofi.spi.util.AddressResolver;
import io.jofi.spi.util.ProgressEngine;
import io.jofi.spi.util.UtilDomain;
import io.jofi.spi.util.UtilMemoryRegion;
import io.jofi.spi.util.WaitBridge;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The shm domain: queues, counters, AVs and registration are the util layer's; it owns
 *
 * <ul>
 * <li>one {@link ProgressEngine} whose step drains the rings of the domain's endpoints
 *     (AUTO: thread {@code jofi-shm-progress-N}; MANUAL: inside the application's calls) and,
 *     idle, sleeps on the domain's doorbell socket {@code jofi-<pid>-<domain>.dbell}, to which
 *     every endpoint's doorbell path is a symbolic link;</li>
 * <li>at open, the removal of files dead processes left in the region directory
 *     ({@code RegionJanitor} for region files, {@link ShmJanitor} for the rest, once per JVM);</li>
 * <li>shareable memory ({@link #allocateBuffer}, {@link #mapFile}) and the domain's
 *     {@link RegistrationTable}: a registration of such a buffer with remote access is
 *     published there, so that initiators in other processes access it directly (one-sided
 *     RMA, README "RMA path");</li>
 * <li>the AVs' {@link ShmAddressResolver} for {@code fi_shm://} names;</li>
 * <li>in MANUAL progress, the transport of the domain's {@link WaitBridge} (thread
 *     {@code jofi-shm-fdwait-N}, started by the first {@code fi_trywait} that arms it): its
 *     readiness wait sleeps on the domain's doorbell with every ring's sleeping flag set, and
 *     counts a producer's ring (of any process) whose record is still there; the bridge
 *     then signals the armed queues' wait objects (an {@code FI_WAIT_FD} channel becomes
 *     readable, R4). It moves no data: the application's next read does (MANUAL).</li>
 * </ul>
 * Only one thread at a time sleeps on the doorbell ({@link #bellLock}): the step or the bridge.
 */
final class ShmDomain extends UtilDomain {
    private static final AtomicInteger THREADS = new AtomicInteger();
    /** How long the step parks when it has no endpoint to sleep on (or the doorbell broke). */
    private static final long IDLE_NO_ENDPOINT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final AtomicInteger BRIDGES = new AtomicInteger();

    private final ShmFabric fabric;
    private final String prefix;
    /** The provider's region directory when this domain opened: a later setting change applies to new domains only. */
    private final Path directory;
    private final RegistrationTable table;
    /** The domain's doorbell socket; every endpoint's doorbell path is a symbolic link to it. */
    private final Doorbell doorbell;
    private final ProgressEngine engine;
    private volatile ShmEndpoint[] endpoints = new ShmEndpoint[0];
    /** Shareable buffers handed out, by identity: what backs them; guarded by this. */
    private final Map<ByteBuffer, Backing> shareable = new IdentityHashMap<>();
    private final List<Path> ownedFiles = new ArrayList<>();
    private int buffers;
    /** Held by the one thread sleeping on {@link #doorbell}: the step or the wait bridge. */
    private final ReentrantLock bellLock = new ReentrantLock();
    /** Signals MANUAL queues' wait objects when the doorbell rings (armed by fi_trywait); null in AUTO. */
    private final WaitBridge bridge;
    /** Set by a step that found the bell taken by the bridge; the bridge then leaves it alone. */
    private volatile boolean stepWantsBell;

    /** What backs a shareable buffer: its file and the file offset of the buffer's index 0. */
    record Backing(Path file, long fileOffset) {
    }

    ShmDomain(ShmFabric fabric, Info info, Object context) throws FabricException {
        super(fabric, info, context);
        this.fabric = fabric;
        this.prefix = ShmNames.newDomainPrefix();
        ShmProvider p = fabric.provider();
        this.directory = p.directory();
        RegistrationTable t;
        try {
            Files.createDirectories(p.directory());
            ShmJanitor.cleanOnce(p.directory());
            t = RegistrationTable.create(p.directory().resolve(ShmNames.domainFile(prefix, ".mr")));
        } catch (IOException e) {
            close();
            throw new FabricException(Errno.EIO, "domain: cannot create the registration table in " + p.directory()
                    + ": " + e.getMessage(), e);
        }
        this.table = t;
        Doorbell bell;
        try {
            bell = Doorbell.bind(p.directory().resolve(ShmNames.domainFile(prefix, ".dbell")));
        } catch (IOException ex) {
            table.close();
            close();
            throw new FabricException(Errno.EIO, "domain: cannot bind the doorbell socket in " + p.directory() + ": "
                    + ex.getMessage(), ex);
        }
        this.doorbell = bell;
        ProgressEngine e;
        try {
            Progress mode = info.domainAttr().dataProgress();
            e = p.startEngine(mode, "jofi-shm-progress-" + THREADS.incrementAndGet(), new Step(),
                    this::progressFailed); // a step that throws fails the domain with EIO (README "Failure model")
        } catch (FabricException ex) {
            closeDoorbell();
            table.close();
            close();
            throw ex;
        }
        this.engine = e;
        this.bridge = e.isManual() ? new WaitBridge("jofi-shm-fdwait-" + BRIDGES.incrementAndGet(), new BellWait()) : null;
        if (bridge != null) {
            fabric.addBridge(bridge);
        }
    }

    /** {@code fi_query_atomic}: the pairs and counts {@link ShmAtomicOps#count} serves. */
    @Override
    public int queryAtomic(int datatype, int op, long flags) {
        return ShmAtomicOps.count(datatype, op, flags);
    }

    /**
     * The step of the domain's engine: drain every endpoint; when idle, announce sleep in every
     * endpoint's ring (each re-checks its ring) and block on the domain's doorbell, which every
     * endpoint's doorbell path links to — a producer that publishes into any of them and sees
     * the flag rings it.
     */
    private final class Step implements ProgressEngine.Step {
        /** Rounds of failing what a fault found, in one pass, before the next pass takes the rest up. */
        private static final int FAULT_ROUNDS = 8;

        /** A fault that left {@link #guardedPass} through its handler's own entry: the next pass takes it up first. */
        private InternalError lateFault;

        @Override
        public int progress(long timeoutNanos) {
            try {
                return guardedPass(timeoutNanos);
            } catch (InternalError late) {
                // Only the delivery of a fault that was still pending at guardedPass's handler comes
                // here: once delivered, none is pending, so this handler's own entry cannot throw.
                if (!MappingFaults.isFault(late)) {
                    throw late;
                }
                lateFault = late;
                return 1;
            }
        }

        /**
         * One pass; a mapped file truncated under it fails its peer (or our endpoint), never this
         * thread. The JVM delivers a fault at the thread's next entry into the VM, wherever that is
         * (MappingFaults): also at the entry into a catch handler (compiled code that never ran a
         * handler enters it by an uncommon trap) or at the first call from it (a resolution).
         * {@code ShmTruncatedCrossProcessTest} stopped the engine so, thrown by a handler that called
         * the recovery (2 runs in 6 on 2026-12-07, while the compiler dropped
         * {@link MappingFaults#deliverPending}'s allocation). So the handler here only stores what it caught and
         * the next round takes it up inside the try; a fault delivered at the handler's own entry
         * leaves through {@link #progress}'s handler into {@link #lateFault}. A further fault of the
         * same truncation is taken in the next round (few: every round fails what it found).
         */
        private int guardedPass(long timeoutNanos) {
            InternalError fault = lateFault;
            lateFault = null;
            for (int round = 0; ; round++) {
                try {
                    if (fault == null) {
                        runStepFault(); // tests only (UtilDomain.injectStepFault)
                        return pass(timeoutNanos);
                    }
                    if (!MappingFaults.isFault(fault)) {
                        break;
                    }
                    if (round <= FAULT_ROUNDS) {
                        onMappingFault();
                    }
                    return 1; // still faulting after FAULT_ROUNDS: the next pass takes it up again
                } catch (InternalError e) {
                    fault = e; // nothing else here: see above
                }
            }
            throw fault;
        }

        private int pass(long timeoutNanos) {
            ShmEndpoint[] eps = endpoints;
            int work = 0;
            for (ShmEndpoint ep : eps) {
                work += ep.progress();
            }
            if (work == 0 && timeoutNanos > 0) {
                for (ShmEndpoint ep : eps) {
                    ep.beforeSleep(); // idle peers looked at for life (provider-shm/README.md "Failure model")
                }
                sleep(eps, timeoutNanos);
            }
            return work;
        }

        private void sleep(ShmEndpoint[] eps, long timeoutNanos) {
            if (eps.length == 0) {
                LockSupport.parkNanos(Math.min(timeoutNanos, IDLE_NO_ENDPOINT_NANOS));
                return;
            }
            if (!bellLock.tryLock()) {
                // The wait bridge sleeps on the bell: ask it to leave it (it stays away while
                // stepWantsBell) and come back shortly.
                stepWantsBell = true;
                doorbell.wakeup();
                LockSupport.parkNanos(Math.min(timeoutNanos, IDLE_NO_ENDPOINT_NANOS));
                return;
            }
            stepWantsBell = false;
            int prepared = 0;
            try {
                for (ShmEndpoint ep : eps) {
                    if (!ep.prepareToSleep()) {
                        return; // a record is there: progress again instead
                    }
                    prepared++;
                }
                doorbell.await(timeoutNanos);
            } catch (IOException e) {
                LockSupport.parkNanos(Math.min(timeoutNanos, IDLE_NO_ENDPOINT_NANOS));
            } finally {
                for (int i = 0; i < prepared; i++) {
                    eps[i].awake();
                }
                bellLock.unlock();
            }
        }

        @Override
        public void wakeup() {
            doorbell.wakeup();
        }

        /**
         * The doorbell is a selector that any one thread at a time may sleep on ({@link #bellLock}),
         * rung by {@code wakeup} from any: a blocking reader may wait on it itself.
         */
        @Override
        public boolean waitsOnAnyThread() {
            return true;
        }
    }

    /**
     * A memory fault surfaced in the progress step (docs/SHM-LAYOUT.md "Bad input, faults, security"): each endpoint fails the
     * peers whose mapped files were truncated, or itself for its own region; a fault nothing
     * explains (a file truncated and then removed) fails every endpoint of the domain with
     * {@code EIO} rather than be swallowed.
     */
    private void onMappingFault() {
        boolean found = false;
        for (ShmEndpoint ep : endpoints) {
            found |= ep.onMappingFault();
        }
        if (!found) {
            for (ShmEndpoint ep : endpoints) {
                ep.failOwnRingNow();
            }
        }
    }

    /**
     * The doorbell as the {@link WaitBridge}'s readiness wait: with every ring's sleeping flag
     * set, sleep on the doorbell; a producer's ring whose record is still there counts (a late
     * byte of a producer that published while an earlier pass slept, or a record the
     * application's own progress took, is no reason to signal), as does a record found while
     * preparing. Only one thread at a time sleeps on the bell ({@link #bellLock}): a step that
     * finds it taken sets {@link #stepWantsBell} and rings, and the bridge leaves it alone for
     * a moment. {@code fi_trywait} answers {@code -EAGAIN} while a ring holds a record
     * ({@link #hasPending}); the bridge's prepare-to-sleep re-checks the rings, so a record
     * published between that check and its sleep is not lost.
     */
    private final class BellWait implements WaitBridge.Transport {
        @Override
        public boolean awaitReadiness(long timeoutNanos) throws IOException {
            if (stepWantsBell) {
                // a blocking read of the application wants the bell: leave it one slice to take
                // it (cleared here, so a step that stopped wanting it cannot lock us out)
                stepWantsBell = false;
                LockSupport.parkNanos(this, IDLE_NO_ENDPOINT_NANOS);
                return false;
            }
            if (!bellLock.tryLock()) {
                // the application's blocking read sleeps on the bell: it is awake for its queues
                LockSupport.parkNanos(this, IDLE_NO_ENDPOINT_NANOS);
                return false;
            }
            ShmEndpoint[] eps = endpoints;
            int prepared = 0;
            try {
                for (ShmEndpoint ep : eps) {
                    if (!ep.prepareToSleep()) {
                        return true;
                    }
                    prepared++;
                }
                // only a producer's ring counts: a wakeup() (a new endpoint, the step wanting
                // the bell, close) just ends the pass
                return doorbell.await(timeoutNanos) && doorbell.wasRung() && anyRecord(eps);
            } finally {
                for (int i = 0; i < prepared; i++) {
                    eps[i].awake();
                }
                bellLock.unlock();
            }
        }

        @Override
        public void wakeup() {
            doorbell.wakeup();
        }

        @Override
        public boolean hasPending() {
            return anyRecord(endpoints);
        }
    }

    /**
     * Whether a ring holds a record. The head read here is the one of the last progress pass
     * before the arming (published to the bridge thread through its monitor).
     */
    private static boolean anyRecord(ShmEndpoint[] eps) {
        for (ShmEndpoint ep : eps) {
            if (ep.hasRecord()) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code fi_endpoint}: an RDM endpoint.
     *
     * @throws FabricException {@code EINVAL} for a null info or another endpoint type
     */
    @Override
    public Endpoint endpoint(Info info, Object context) throws FabricException {
        ensureOpen("endpoint");
        if (info == null) {
            throw new FabricException(Errno.EINVAL, "endpoint: info is required");
        }
        EpType t = info.epAttr().type();
        if (t != EpType.RDM && t != EpType.UNSPEC) {
            throw new FabricException(Errno.EINVAL, "endpoint: shm offers RDM endpoints only, not " + t);
        }
        return adopt(new ShmEndpoint(this, info, context));
    }

    synchronized void addEndpoint(ShmEndpoint ep) {
        ShmEndpoint[] old = endpoints;
        ShmEndpoint[] n = java.util.Arrays.copyOf(old, old.length + 1);
        n[old.length] = ep;
        endpoints = n;
        // a step asleep has not set the new ring's sleeping flag: producers would not ring
        doorbell.wakeup();
    }

    synchronized void removeEndpoint(ShmEndpoint ep) {
        ShmEndpoint[] old = endpoints;
        int at = -1;
        for (int i = 0; i < old.length; i++) {
            if (old[i] == ep) {
                at = i;
            }
        }
        if (at < 0) {
            return;
        }
        ShmEndpoint[] n = new ShmEndpoint[old.length - 1];
        System.arraycopy(old, 0, n, 0, at);
        System.arraycopy(old, at + 1, n, at, old.length - at - 1);
        endpoints = n;
    }

    /**
     * Shareable memory: a file {@code <dir>/jofi-<pid>-<domain>.buf<k>} (mode 0600) mapped
     * shared; registering this very buffer with remote access publishes it for direct access
     * by peers. The file is removed when the domain closes.
     *
     * @throws FabricException {@code EINVAL} for a size out of range; {@code ENOMEM} when the
     *         file cannot be created or mapped
     */
    @Override
    public ByteBuffer allocateBuffer(long size) throws FabricException {
        ensureOpen("allocateBuffer");
        if (size <= 0 || size > Integer.MAX_VALUE) {
            throw new FabricException(Errno.EINVAL, "allocateBuffer: size " + size + " is outside 1.." + Integer.MAX_VALUE);
        }
        Path file;
        synchronized (this) {
            file = directory.resolve(ShmNames.domainFile(prefix, ".buf" + (++buffers)));
        }
        try (FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            ch.truncate(size);
            if (ch.size() < size) {
                ch.write(ByteBuffer.allocate(1), size - 1);
            }
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            synchronized (this) {
                shareable.put(m, new Backing(file, 0));
                ownedFiles.add(file);
            }
            return m;
        } catch (java.nio.file.FileAlreadyExistsException e) {
            // not ours (the name holds our pid and domain): another process put it there; leave it
            throw new FabricException(Errno.EEXIST, "allocateBuffer: the shared-memory file " + file
                    + " exists already and is not this domain's (" + ShmNames.ownerOf(file)
                    + "): another process made it; remove it, or use another directory (jofi.shm.directory)", e);
        } catch (java.nio.file.AccessDeniedException e) {
            throw new FabricException(Errno.EACCES, "allocateBuffer: no permission to create the shared-memory file "
                    + file + ": " + e.getMessage(), e);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(file); // ours: created above (CREATE_NEW), then the size failed
            } catch (IOException ignored) {
                // nothing was made
            }
            throw new FabricException(Errno.ENOMEM, "allocateBuffer: cannot create " + size + " bytes of shared memory in "
                    + file.getParent() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Maps {@code [offset, offset + size)} of {@code file} shared (read-write); a registration
     * of this very buffer is published for direct access by peers, and operations with
     * {@code FI_COMMIT_COMPLETE} into it force the mapping to storage (R11).
     *
     * @throws FabricException as {@link io.jofi.Domain#mapFile}
     */
    @Override
    public ByteBuffer mapFile(Path file, long offset, long size) throws FabricException {
        ensureOpen("mapFile");
        if (file == null) {
            throw new FabricException(Errno.EINVAL, "mapFile: the file is null");
        }
        if (offset < 0 || size <= 0 || size > Integer.MAX_VALUE) {
            throw new FabricException(Errno.EINVAL, "mapFile: offset " + offset + " / size " + size + " out of range");
        }
        Path abs = file.toAbsolutePath().normalize();
        try (FileChannel ch = FileChannel.open(abs, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long fileSize = ch.size();
            if (offset > fileSize || size > fileSize - offset) {
                throw new FabricException(Errno.EINVAL, "mapFile: [" + offset + ", " + (offset + size) + ") lies beyond the end of "
                        + abs + " (" + fileSize + " bytes); the file is not grown");
            }
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, offset, size);
            synchronized (this) {
                shareable.put(m, new Backing(abs, offset));
            }
            return m;
        } catch (NoSuchFileException e) {
            throw new FabricException(Errno.ENOENT, "mapFile: " + abs + " does not exist", e);
        } catch (IOException e) {
            throw new FabricException(Errno.EIO, "mapFile: cannot map " + abs + ": " + e.getMessage(), e);
        }
    }

    /**
     * {@code fi_mr_reg}, plus publication in the registration table when {@code buf} is a
     * buffer of {@link #allocateBuffer}/{@link #mapFile} registered with remote access.
     */
    @Override
    public MemoryRegion register(ByteBuffer buf, long access, long offset, long requestedKey, long flags,
                                 Object context) throws FabricException {
        MemoryRegion r = super.register(buf, access, offset, requestedKey, flags, context);
        long remote = access & (Fi.FI_REMOTE_READ | Fi.FI_REMOTE_WRITE);
        if (remote == 0 || !(r instanceof UtilMemoryRegion u)) {
            return r;
        }
        synchronized (this) {
            Backing b = shareable.get(buf);
            if (b == null) {
                return r;
            }
            int index = table.publish(u.key(), remote, u.address() + u.offset(), u.length(),
                    b.fileOffset() + buf.position(), b.file().toString());
            if (index >= 0) {
                u.whenClosed(() -> withdraw(index));
            }
        }
        return r;
    }

    /** An endpoint counts remote accesses: initiators must notify this domain of direct ones. */
    synchronized void eventsWanted() {
        table.eventsWanted(true);
    }

    private synchronized void withdraw(int index) {
        table.withdraw(index);
    }

    @Override
    protected AddressResolver addressResolver() {
        return info().addrFormat() == AddrFormat.ADDR_STR || info().addrFormat() == AddrFormat.UNSPEC
                ? new ShmAddressResolver() : super.addressResolver();
    }

    /** The domain's doorbell socket (endpoints link their doorbell paths to it). */
    Path doorbellPath() {
        return doorbell.path();
    }

    private void closeDoorbell() {
        try {
            doorbell.close();
        } catch (IOException e) {
            // the janitor of a later run removes the socket file
        }
    }

    String prefix() {
        return prefix;
    }

    ProgressEngine engine() {
        return engine;
    }

    ShmProvider provider() {
        return fabric.provider();
    }

    private void stop() {
        if (bridge != null) {
            fabric.removeBridge(bridge);
        }
        if (engine != null) {
            fabric.provider().stopEngine(engine);
        }
        if (doorbell != null) {
            if (bridge != null) {
                bridge.close(); // before the doorbell it sleeps on (R15: it never outlives the domain)
            }
            closeDoorbell();
        }
        if (table != null) {
            table.close();
        }
        List<Path> files;
        synchronized (this) {
            files = new ArrayList<>(ownedFiles);
            ownedFiles.clear();
            shareable.clear();
        }
        for (Path f : files) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                // the janitor of a later run removes it
            }
        }
    }

    @Override
    protected void onClose() throws FabricException {
        try {
            super.onClose();
        } finally {
            stop();
        }
    }

    @Override
    protected void onDeparture() {
        try {
            super.onDeparture();
        } finally {
            stop();
        }
    }
}
