/**
 * Shared-memory primitives of the shm provider (docs/SHM-LAYOUT.md "Design" and "Bad input, faults, security"): region files and their layout, the lock-free MPSC ring, bounce buffers, the
 * cross-process doorbell, process liveness and the janitor. Private package.
 * <ul>
 * <li>{@link io.jofi.provider.shm.ring.RegionDescriptor} / {@link io.jofi.provider.shm.ring.RingDescriptor}:
 *     the file layout and the record layout (offsets as constants, pictures in the javadoc).</li>
 * <li>{@link io.jofi.provider.shm.ring.ShmRegion}: {@code create(dir, name, RegionSizes)} by the
 *     owner (mode 0600 at creation), {@code map(dir, name)} by a peer (refused with
 *     {@link io.jofi.provider.shm.ring.RegionRefusedException}: other uid, bad magic/version,
 *     sizes, dead owner); {@code ring()}, {@code bounceSlots()}, {@code doorbellPath()}.</li>
 * <li>{@link io.jofi.provider.shm.ring.MpscRing}: producers {@code claim(type, sender, aux,
 *     payloadLength)} → offset or {@code FULL}/{@code FAILED}/-errno, write the payload at
 *     offset + 16 in {@code buffer()}, {@code publish(offset)} → "ring the doorbell";
 *     {@code abort(offset)}. Consumer {@code read(RecordHandler, limit)} → count or
 *     {@code FAILED}; {@code prepareToSleep()}/{@code awake()}; stalled claims resolved through
 *     {@link io.jofi.provider.shm.ring.SenderLiveness}.</li>
 * <li>{@link io.jofi.provider.shm.ring.BounceSlots}: {@code acquire(holder)}/{@code release(slot)}.</li>
 * <li>{@link io.jofi.provider.shm.ring.Doorbell} (consumer: {@code bind}, {@code await},
 *     {@code wakeup}) and {@link io.jofi.provider.shm.ring.DoorbellRinger} (producer:
 *     {@code connect}, {@code ring}).</li>
 * <li>{@link io.jofi.provider.shm.ring.ProcessLiveness} (pid + /proc start time) and
 *     {@link io.jofi.provider.shm.ring.RegionJanitor#clean}.</li>
 * </ul>
 */
package io.jofi.provider.shm.ring;
