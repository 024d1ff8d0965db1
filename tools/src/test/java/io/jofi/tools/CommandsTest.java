package io.jofi.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class CommandsTest {
    @Test
    void unknownCommandIsAUsageError() {
        Console console = Console.withTestProviders();
        assertEquals(ExitStatus.USAGE, console.run("bogus"));
        assertEquals("jofi: unknown command 'bogus' (commands: info, providers, pingpong, bw, rma_bw, stat, ft)\n", console.err());
    }

    @Test
    void statOfADirectoryWithoutCountersFilesPrintsOnlyItsHeader(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        Console console = Console.withoutProviders();
        assertEquals(ExitStatus.OK, console.run("stat", "-n", "-m", "-d", dir.toString()));
        assertEquals("---\njofi stat " + dir + " :\n", console.out());
        assertEquals(ExitStatus.USAGE, Console.withoutProviders().run("stat", "-n", "-i", "0"));
    }

    @Test
    void statOfAProcessWithoutACountersFileFails(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        // before: the header, nothing under it, and success
        Console console = Console.withoutProviders();
        assertEquals(ExitStatus.FAILURE, console.run("stat", "-n", "-p", "2147483646", "-d", dir.toString()));
        assertEquals("jofi stat: no live JOFI process 2147483646 has a counters file in " + dir + "\n", console.err());
        Console machine = Console.withoutProviders();
        assertEquals(ExitStatus.OK, machine.run("stat", "-n", "-m", "-p", "2147483646", "-d", dir.toString()));
        assertEquals("---\njofi stat " + dir + " :\n", machine.out(), "-m: no line is the answer");
    }

    @Test
    void eachPerfCommandsHelpGivesItsOwnIterationDefaults() {
        for (String[] c : new String[][] {{"pingpong", "10000", "1000", "100"}, {"bw", "20000", "2000", "200"},
                {"rma_bw", "20000", "2000", "200"}}) {
            Console console = Console.withoutProviders();
            assertEquals(ExitStatus.OK, console.run(c[0], "--help"));
            String help = console.out().replaceAll("\\s+", " ");
            assertTrue(help.contains("Timed iterations (default: " + c[1] + " below 64k, " + c[2] + " below 1m, "
                    + c[3] + " from 1m)"), c[0] + ": " + help);
        }
    }

    @Test
    void providersAloneListsLikeInfoList() {
        Console list = Console.withTestProviders();
        Console providers = Console.withTestProviders();
        assertEquals(ExitStatus.OK, list.run("info", "-l"));
        assertEquals(ExitStatus.OK, providers.run("providers"));
        assertTrue(list.out().contains(SampleProvider.NAME + ":"), list.out());
        assertEquals(list.out(), providers.out());
    }

    @Test
    void swapNeedsAName() {
        Console console = Console.withTestProviders();
        assertEquals(ExitStatus.USAGE, console.run("providers", "stop"));
        assertTrue(console.err().contains("needs a provider NAME"), console.err());
    }

    @Test
    void swapOutsideAFrameworkFails() {
        Console console = Console.withTestProviders();
        assertEquals(ExitStatus.FAILURE, console.run("providers", "stop", SampleProvider.NAME));
        assertTrue(console.err().contains("not running in an OSGi framework"), console.err());
    }

    @Test
    void commandLineSurvivesTheEncoding() {
        List<String> argv = List.of("info", "-c", "FI_MSG|FI_TAGGED", "", "a b\nc", "ünïcödé,comma");
        assertEquals(argv, CommandLineArgs.decode(CommandLineArgs.encode(argv)));
        assertEquals(List.of(), CommandLineArgs.decode(""));
    }
}
