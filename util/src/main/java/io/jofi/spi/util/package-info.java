/**
 * Shared provider building blocks, as libfabric's util layer: the completion queue, event
 * queue, wait objects, wait and poll sets, counters, address vectors, memory-region keys and
 * the progress engine, and an endpoint's bindings ({@link io.jofi.spi.util.EndpointBindings}).
 * Every provider uses these; none re-implements them.
 *
 * <p>1.1.0: {@code EndpointBindings} added.
 * <p>1.2.0: {@code PostChecks} added (the errno table of docs/ERRORS.md); a failing progress
 * step is reported ({@code ProgressEngine.FailureHandler}, {@code UtilDomain.progressFailed},
 * {@code AbstractFid.fail}); {@code WaitBridge} (waking MANUAL-progress wait objects) and
 * {@code TryWait.tryWait(Collection, Fid...)} added; {@code Atomics} added (the target-side
 * arithmetic of fi_atomic(3), one for every provider).
 * <p>1.3.0: {@code UtilEndpoint} added (an endpoint's bindings, caps gate, post checks and
 * convenience calls, once for every provider); {@code PostChecks.payload} (a transmit's bytes,
 * or {@code -EINVAL} for a missing buffer or too many iovs); {@code UtilDomain.injectStepFault}
 * (the test hook that makes a progress step throw, formerly in each provider's domain).
 * <p>1.4.0: {@code CompletionBatch} (a provider thread's completions published at once);
 * {@code EndpointCounters.send}/{@code rma} take the post's length (the bytes posted are
 * counted), {@code EndpointCounters.group}, {@code ReceiveCompletion.countIn} (messages and
 * bytes received). No release carried 1.3.0's two-argument {@code send}/{@code rma}; a first
 * release baselines from here.
 * <p>1.5.0: {@code SnapshotArrays} (the copy-on-write arrays hot loops walk by index).
 * <p>1.7.0: {@code SafeLog} (log calls that cannot throw on progress threads) and
 * {@code EpisodeWarning} (a recurring failure said once per episode); a progress engine's
 * failure handler that throws is called again until it returns.
 * <p>1.8.0: {@code PeerRemovalSource} (from {@code io.jofi.provider.rxm}), which every
 * {@code UtilAddressVector} now is: the layers bound to an AV hear of its removals without the
 * provider repeating the listeners.
 * <p>1.9.0: {@code PostChecks.INJECT_CALL} and {@code PostChecks.reportsToCq}: the one rule for
 * which transmits report (all but the {@code fi_inject*} calls), read by every provider's funnel.
 * <p>1.9.0 also: progress on publish — {@code ProgressEngine.hosted} (AUTO progress without a thread,
 * run by its hosts after their passes and by {@code follow()}), {@code ProgressEngine.host}/
 * {@code unhost}/{@code isHosted}, {@code UtilCompletionQueue.hostProgress} (the engines attached to
 * a queue host a layered provider's engine).
 * <p>1.10.0: {@code UtilEventQueue.readBefore} and {@code WaitSupport.driveProgressBesides} (a
 * layered provider's EQ read that leaves the engines its CQ read drives next to that read: one
 * drive of the core per pass).
 */
@Export
@Version("1.11.0")
package io.jofi.spi.util;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
