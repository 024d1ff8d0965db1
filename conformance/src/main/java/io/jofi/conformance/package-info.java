/**
 * The JOFI conformance kit: a provider-agnostic JUnit 5 suite that drives the public API
 * ({@code io.jofi}) only and checks the rules R1–R16 of docs/API.md and the testable sentences of
 * fi_cq(3) and fi_eq(3).
 *
 * <p>A provider runs it with one tiny subclass per suite in its own test tree, e.g.
 * {@code class TcpCqConformanceTest extends CqConformance { }}, naming itself through the
 * system property {@code jofi.conformance.provider} or by overriding
 * {@link io.jofi.conformance.ProviderTest#provider()}. A test is skipped only when the
 * provider lacks what it needs, and the skip reason names the missing capability.
 */
@Version("2.2.0")
package io.jofi.conformance;

import org.osgi.annotation.versioning.Version;
