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
import io.jofi.spi.util.WaitSupport;
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
 * <li>in MANUAL progress, the <em>wait bridge</em> (thread {@code jofi-shm-fdwait-N}, started
 *     by the first {@code fi_trywait} that arms it): while queues armed by
 *     {@link #armForWait} wait, it sleeps on the domain's doorbell with every ring's sleeping
 *     flag set, and when a producer of any process rings, signals those queues' wait objects
 *     (an {@code FI_WAIT_FD} channel becomes readable, R4). It moves no data: the
 *     application's next read does (MANUAL).</li>
 * </ul>
 * Only one thread at a time sleeps on the doorbell ({@link #bellLock}): the step or the bridge.
 */
final class ShmDomain extends UtilDomain {
    private static final AtomicInteger THREADS = new AtomicInteger();
    /** How long the step parks when it has no endpoint to sleep on (or the doorbell broke). */
    private static final long IDLE_NO_ENDPOINT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** The wait bridge re-checks its state (stop, endpoints added) at least this often. */
    private static final long BRIDGE_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final AtomicInteger BRIDGES = new AtomicInteger();
    private static final WaitSupport[] NOT_ARMED = new WaitSupport[0];

    private final ShmFabric fabric;
    private final String prefix;
    private final RegistrationTable table;
    /** The domain's doorbell socket; every endpoint's doorbell path is a symbolic link to it. */
    private final Doorbell doorbell;
    private final ProgressEngine engine;
    /** Tests only ({@link #injectStepFault}): run at the top of every progress step. */
    private volatile Runnable stepFault;
    private volatile ShmEndpoint[] endpoints = new ShmEndpoint[0];
    /** Shareable buffers handed out, by identity: what backs them; guarded by this. */
    private final Map<ByteBuffer, Backing> shareable = new IdentityHashMap<>();
    private final List<Path> ownedFiles = new ArrayList<>();
    private int buffers;
    /** Held by the one thread sleeping on {@link #doorbell}: the step or the wait bridge. */
    private final ReentrantLock bellLock = new ReentrantLock();
    /** The wait objects to signal when the doorbell rings (MANUAL, armed by fi_trywait); guarded by this. */
    private WaitSupport[] armed = NOT_ARMED;
    /** Counts armings; guarded by this. A bridge pass fires only if no arming came during it. */
    private long armings;
    /** The wait bridge thread (MANUAL only, started lazily); guarded by this. */
    private Thread bridge;
    private volatile boolean bridgeRunning;
    /** Set by a step that found the bell taken by the bridge; the bridge then leaves it alone. */
    private volatile boolean stepWantsBell;
    private boolean stopped;

    /** What backs a shareable buffer: its file and the file offset of the buffer's index 0. */
    record Backing(Path file, long fileOffset) {
    }

    ShmDomain(ShmFabric fabric, Info info, Object context) throws FabricException {
        super(fabric, info, context);
        this.fabric = fabric;
        this.prefix = ShmNames.newDomainPrefix();
        ShmProvider p = fabric.provider();
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
                    this::progressFailed); // a step that throws fails the domain with EIO (issue 12)
        } catch (FabricException ex) {
            closeDoorbell();
            table.close();
            close();
            throw ex;
        }
        this.engine = e;
        fabric.addDomain(this);
    }

    /**
     * The step of the domain's engine: drain every endpoint; when idle, announce sleep in every
     * endpoint's ring (each re-checks its ring) and block on the domain's doorbell, which every
     * endpoint's doorbell path links to — a producer that publishes into any of them and sees
     * the flag rings it.
     */
    private final class Step implements ProgressEngine.Step {
        @Override
        public int progress(long timeoutNanos) {
            Runnable f = stepFault;
            if (f != null) {
                f.run();
            }
            try {
                return pass(timeoutNanos);
            } catch (InternalError e) {
                if (!MappingFaults.isFault(e)) {
                    throw e;
                }
                onMappingFault(); // a mapped file was truncated: fail its peer, never this thread
                return 1;
            }
        }

        private int pass(long timeoutNanos) {
            ShmEndpoint[] eps = endpoints;
            int work = 0;
            for (ShmEndpoint ep : eps) {
                work += ep.progress();
            }
            if (work == 0 && timeoutNanos > 0) {
                for (ShmEndpoint ep : eps) {
                    ep.beforeSleep(); // idle peers looked at for life (issue 12 item 10)
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
    }

    /**
     * A memory fault surfaced in the progress step (issue 12 item 16): each endpoint fails the
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
     * {@code fi_trywait} for this domain (R4, API.md "FI_WAIT_FD ... use Fabric.tryWait before
     * blocking"): in MANUAL progress nobody moves data while the application sleeps on a wait
     * object, so a record from another process would not make it ready. This answers
     * {@code -EAGAIN} when an endpoint's ring holds a record (progress has work: read
     * instead of sleeping); otherwise it arms the wait bridge, which signals every one of
     * {@code waits} (FD readable, condition waiters woken) once a producer rings the doorbell.
     * The bridge's own prepare-to-sleep re-checks the rings, so a record published between
     * this check and its sleep is not lost. In AUTO progress the progress thread completes
     * operations and signals the queues itself: nothing to arm.
     *
     * @return 0 (safe to block) or {@code -EAGAIN}
     */
    int armForWait(WaitSupport[] waits) {
        if (!engine.isManual()) {
            return 0;
        }
        for (ShmEndpoint ep : endpoints) {
            if (ep.hasRecord()) {
                return -Errno.EAGAIN;
            }
        }
        Thread start = null;
        synchronized (this) {
            if (stopped) {
                return 0;
            }
            WaitSupport[] a = armed;
            for (WaitSupport w : waits) {
                boolean known = false;
                for (WaitSupport x : a) {
                    known |= x == w;
                }
                if (!known) {
                    a = java.util.Arrays.copyOf(a, a.length + 1);
                    a[a.length - 1] = w;
                }
            }
            armed = a;
            armings++;

            if (bridge == null) {
                bridgeRunning = true;
                bridge = start = new Thread(this::bridgeLoop, "jofi-shm-fdwait-" + BRIDGES.incrementAndGet());
                bridge.setDaemon(true);
            }
            if (start == null) {
                LockSupport.unpark(bridge);
            }
        }
        if (start != null) {
            start.start();
        }
        return 0;
    }

    /**
     * The wait bridge: while queues are armed, sleep on the doorbell with every ring's sleeping
     * flag set; when rung (or a ring already holds a record, or the step takes the bell over),
     * signal the armed queues once and disarm — unless a {@code tryWait} armed during the pass
     * (it checked the rings after what woke the pass; the next pass sleeps for it). Spurious
     * signals are harmless: the application reads, finds nothing, and calls {@code tryWait}
     * again, which resets the FD.
     */
    private void bridgeLoop() {
        while (bridgeRunning) {
            WaitSupport[] waits;
            long pass;
            synchronized (this) {
                waits = armed;
                pass = armings;
            }
            if (waits.length == 0) {
                LockSupport.parkNanos(this, BRIDGE_SLICE_NANOS);
                continue;
            }
            if (stepWantsBell) {
                // a blocking read of the application wants the bell: leave it one slice to take
                // it (cleared here, so a step that stopped wanting it cannot lock us out)
                stepWantsBell = false;
                LockSupport.parkNanos(this, IDLE_NO_ENDPOINT_NANOS);
                continue;
            }
            if (!bellLock.tryLock()) {
                // the application's blocking read sleeps on the bell: it is awake for its queues
                LockSupport.parkNanos(this, IDLE_NO_ENDPOINT_NANOS);
                continue;
            }
            boolean fire = false;
            ShmEndpoint[] eps = endpoints;
            int prepared = 0;
            try {
                for (ShmEndpoint ep : eps) {
                    if (!ep.prepareToSleep()) {
                        fire = true;
                        break;
                    }
                    prepared++;
                }
                if (!fire) {
                    // only a producer's ring counts: a wakeup() (a new endpoint, the step
                    // wanting the bell, close) just ends the pass
                    fire = doorbell.await(BRIDGE_SLICE_NANOS) && doorbell.wasRung() && anyRecord(eps);
                }
            } catch (IOException e) {
                fire = true; // the doorbell broke: let the application look (and progress) itself
            } finally {
                for (int i = 0; i < prepared; i++) {
                    eps[i].awake();
                }
                bellLock.unlock();
            }
            if (fire && bridgeRunning) {
                synchronized (this) {
                    if (armings != pass) {
                        // A tryWait armed meanwhile: it drove progress and checked the rings
                        // after what woke this pass; the next pass sleeps for it.
                        continue;
                    }
                    waits = armed;
                    armed = NOT_ARMED;
                }

                for (WaitSupport w : waits) {
                    w.notifyReady();
                }
            }
        }
    }

    /**
     * Whether a ring holds a record: a ring whose record is gone already (a late byte of a
     * producer that published while an earlier pass slept, or a record the application's own
     * progress took) is no reason to signal. The head read here is the one of the last
     * progress pass before the arming (published to this thread through the monitor).
     */
    private static boolean anyRecord(ShmEndpoint[] eps) {
        for (ShmEndpoint ep : eps) {
            if (ep.hasRecord()) {
                return true;
            }
        }
        return false;
    }

    private void stopBridge() {
        Thread t;
        synchronized (this) {
            stopped = true;
            bridgeRunning = false;
            armed = NOT_ARMED;
            t = bridge;
        }
        if (t == null || t == Thread.currentThread()) {
            return;
        }
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.isAlive() && System.nanoTime() < deadline) {
            LockSupport.unpark(t);
            doorbell.wakeup();
            try {
                t.join(100);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
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
            file = fabric.provider().directory().resolve(ShmNames.domainFile(prefix, ".buf" + (++buffers)));
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
        } catch (IOException e) {
            try {
                Files.deleteIfExists(file);
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

    /**
     * Tests only: {@code fault} runs at the top of every progress step from now on (null: none),
     * so a test can make the real step throw, as a provider bug would.
     */
    void injectStepFault(Runnable fault) {
        stepFault = fault;
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
        fabric.removeDomain(this);
        if (engine != null) {
            fabric.provider().stopEngine(engine);
        }
        if (doorbell != null) {
            stopBridge();
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
