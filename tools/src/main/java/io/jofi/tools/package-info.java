/**
 * The jofi commands. Private: nothing here is exported.
 *
 * <ul>
 * <li>{@link io.jofi.tools.Commands} is the command set: name to {@link io.jofi.tools.Command}
 *     factory; a new command (pingpong, bw) is one class plus one line there and one Gogo
 *     method in {@link io.jofi.tools.JofiCommands}.</li>
 * <li>{@link io.jofi.tools.JofiCommands} exposes them in the Gogo shell as {@code jofi:*}.</li>
 * <li>{@link io.jofi.tools.CommandLineRunner} runs one of them non-interactively for the
 *     {@code ./jofi} launcher and exits the JVM with its status.</li>
 * </ul>
 */
package io.jofi.tools;
