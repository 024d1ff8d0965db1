/**
 * The verbs provider (private package): {@link io.jofi.provider.verbs.VerbsProvider} and the
 * fabric, domain and endpoints it opens over libibverbs and librdmacm.
 */
package io.jofi.provider.verbs;
