package io.jofi.tools;

import io.jofi.EpType;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.ProviderInfo;
import java.util.List;
import picocli.CommandLine;

/**
 * {@code jofi info}: {@code fi_info} — the providers, their settings, or the infos that match
 * the hints, with fi_info 1.17's options and letters ({@code fi_info -h}).
 */
@CommandLine.Command(name = "info", sortOptions = false,
        description = "Lists the fabric interfaces that match the hints (fi_getinfo), like fi_info.")
final class InfoCommand extends Command {
    @CommandLine.Option(names = {"-s", "--src_addr", "--src-addr"}, paramLabel = "ADDR",
            description = "Source name or address: the node, with FI_SOURCE (fi_info -s).")
    String srcAddr;

    @CommandLine.Option(names = {"-n", "--node"}, paramLabel = "NAME", description = "Destination node name or address.")
    String node;

    @CommandLine.Option(names = {"-P", "--port", "--service"}, paramLabel = "PNUM", description = "Port number (the service).")
    String service;

    @CommandLine.Option(names = {"-c", "--caps"}, paramLabel = "CAP1|CAP2..",
            description = "One or more capabilities, e.g. 'FI_MSG|FI_TAGGED'.")
    String caps;

    @CommandLine.Option(names = {"-t", "--ep_type", "--ep-type"}, paramLabel = "EPTYPE",
            converter = EpTypeConverter.class, description = "A single endpoint type: FI_EP_MSG, FI_EP_RDM, FI_EP_DGRAM (or msg, rdm, dgram).")
    EpType epType;

    @CommandLine.Option(names = {"-d", "--domain"}, paramLabel = "DOMAIN", description = "The domain name.")
    String domain;

    @CommandLine.Option(names = {"-f", "--fabric"}, paramLabel = "FABRIC", description = "The fabric name.")
    String fabric;

    @CommandLine.Option(names = {"-p", "--provider"}, paramLabel = "PROV", description = "Only this provider.")
    String provider;

    @CommandLine.Option(names = {"-e", "--env"},
            description = "Print the providers' settings (system properties jofi.<provider>.*) with default, current value and description.")
    boolean env;

    @CommandLine.Option(names = {"-g", "--getenv"}, paramLabel = "SUBSTR",
            description = "Print the settings whose names contain SUBSTR.")
    String getenv;

    @CommandLine.Option(names = {"-l", "--list"},
            description = "List the providers with version and state (and why when unavailable).")
    boolean list;

    @CommandLine.Option(names = {"-v", "--verbose"}, description = "Every attribute of each info.")
    boolean verbose;

    @CommandLine.Option(names = "--version", description = "Print the version and exit.")
    boolean version;

    @CommandLine.Option(names = "--source", description = "NODE and PNUM name the local address (FI_SOURCE).")
    boolean source;

    @Override
    protected int execute() {
        if (version) {
            // as fi_info --version: the program's version, then the API version it speaks
            out().println("jofi: " + ProductVersion.of(InfoCommand.class));
            out().println("libfabric api: " + Fi.FI_MAJOR_VERSION + "." + Fi.FI_MINOR_VERSION);
            return ExitStatus.OK;
        }
        Fabrics fabrics = context().requireFabrics();
        List<ProviderInfo> providers = fabrics.providers();
        if (list) {
            ProviderList.print(providers, context().bundleContext(), out());
            return ExitStatus.OK;
        }
        if (env || getenv != null) {
            SettingsList.print(providers, provider, getenv, context().bundleContext(), out());
            return ExitStatus.OK;
        }
        if (providers.isEmpty()) {
            throw new CommandFailure("no providers: " + ProviderList.NONE_REASON);
        }
        List<Info> infos;
        try {
            infos = srcAddr != null
                    ? fabrics.getInfo(srcAddr, service, Fi.FI_SOURCE, hints())
                    : fabrics.getInfo(node, service, source ? Fi.FI_SOURCE : 0, hints());
        } catch (FabricException e) {
            throw new CommandFailure(e.getMessage());
        }
        for (Info info : infos) {
            out().print(verbose ? info.toString() + "\n" : InfoBlock.of(info));
        }
        return ExitStatus.OK;
    }

    /** The hints the options ask for; {@code null} when none was given, as fi_info does. */
    private Info hints() {
        if (provider == null && epType == null && caps == null && domain == null && fabric == null) {
            return null;
        }
        Info hints = new Info();
        if (provider != null) {
            hints.fabricAttr().provName(provider);
        }
        if (fabric != null) {
            hints.fabricAttr().name(fabric);
        }
        if (domain != null) {
            hints.domainAttr().name(domain);
        }
        if (epType != null) {
            hints.epAttr().type(epType);
        }
        if (caps != null) {
            try {
                hints.caps(Fi.parseCaps(caps));
            } catch (IllegalArgumentException e) {
                throw new CommandFailure("-c " + caps + ": " + e.getMessage(), ExitStatus.USAGE);
            }
        }
        return hints;
    }

    /** {@code msg}, {@code MSG}, {@code FI_EP_MSG} ... */
    static final class EpTypeConverter implements CommandLine.ITypeConverter<EpType> {
        @Override
        public EpType convert(String value) {
            for (EpType type : EpType.values()) {
                if (type.name().equalsIgnoreCase(value) || type.fiName().equalsIgnoreCase(value)) {
                    return type;
                }
            }
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not an endpoint type (msg, rdm, dgram)");
        }
    }
}
