/**
 * The JNA binding to libibverbs and librdmacm (private package): direct-mapped exported
 * functions ({@link io.jofi.provider.verbs.binding.Ibv}, {@link io.jofi.provider.verbs.binding.Rdmacm}),
 * the data-path functions of a context's operation table
 * ({@link io.jofi.provider.verbs.binding.ContextOps}), one {@code …Descriptor} class per native
 * struct with explicit offsets, and the enum values ({@link io.jofi.provider.verbs.binding.VerbsConstants}).
 */
package io.jofi.provider.verbs.binding;
