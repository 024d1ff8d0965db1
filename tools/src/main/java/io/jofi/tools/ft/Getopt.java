package io.jofi.tools.ft;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a command line as glibc's {@code getopt(3)} does with an option string such as
 * {@code "hB:P:s:b::"}: single-letter options, grouped ({@code -vU}), with a required argument
 * attached or in the next word ({@code -I10}, {@code -I 10}), an optional one ({@code b::}) only
 * attached; non-options are set aside (glibc permutes them to the end) and {@code --} ends the
 * options. fabtests parses every program's options this way, so {@code ./jofi ft} accepts exactly
 * the words the C program accepts. An unknown letter or a missing argument is option {@code '?'}.
 */
final class Getopt {
    /** One option as getopt returns it: the letter ({@code '?'} for an error) and its argument or null. */
    record Option(char letter, String argument) {
    }

    private final List<Option> options = new ArrayList<>();
    private final List<String> operands = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();

    Getopt(String optstring, List<String> args) {
        boolean optionsEnded = false;
        for (int i = 0; i < args.size(); i++) {
            String word = args.get(i);
            if (optionsEnded || word.length() < 2 || word.charAt(0) != '-') {
                operands.add(word);
                continue;
            }
            if (word.equals("--")) {
                optionsEnded = true;
                continue;
            }
            for (int j = 1; j < word.length(); j++) {
                char letter = word.charAt(j);
                int at = letter == ':' ? -1 : optstring.indexOf(letter);
                if (at < 0) {
                    errors.add("invalid option -- '" + letter + "'");
                    options.add(new Option('?', null));
                    continue;
                }
                boolean takes = at + 1 < optstring.length() && optstring.charAt(at + 1) == ':';
                boolean optional = takes && at + 2 < optstring.length() && optstring.charAt(at + 2) == ':';
                if (!takes) {
                    options.add(new Option(letter, null));
                    continue;
                }
                String rest = word.substring(j + 1);
                if (!rest.isEmpty()) {
                    options.add(new Option(letter, rest));
                } else if (optional) {
                    options.add(new Option(letter, null));
                } else if (i + 1 < args.size()) {
                    options.add(new Option(letter, args.get(++i)));
                } else {
                    errors.add("option requires an argument -- '" + letter + "'");
                    options.add(new Option('?', null));
                }
                break;
            }
        }
    }

    /** The options in command-line order. */
    List<Option> options() {
        return options;
    }

    /** The non-option words in order (fabtests takes the first as the server's address). */
    List<String> operands() {
        return operands;
    }

    /** glibc's messages for the unknown letters and missing arguments, in order. */
    List<String> errors() {
        return errors;
    }
}
