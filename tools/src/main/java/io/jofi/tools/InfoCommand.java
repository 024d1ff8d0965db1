package io.jofi.tools;

import io.jofi.EpType;
import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Fi;
import io.jofi.Info;
import io.jofi.ProviderInfo;
import java.util.List;
import picocli.CommandLine;

/** {@code jofi info}: {@code fi_info} — the providers, or the infos that match the hints. */
@CommandLine.Command(name = "info", sortOptions = false,
        description = "Lists the fabric interfaces that match the hints (fi_getinfo), like fi_info.")
final class InfoCommand extends Command {
    @CommandLine.Option(names = {"-l", "--list"},
            description = "List the providers with version and state (and why when unavailable).")
    boolean list;

    @CommandLine.Option(names = {"-p", "--provider"}, paramLabel = "NAME",
            description = "Only this provider (hints.fabricAttr().provName).")
    String provider;

    @CommandLine.Option(names = {"-e", "--ep-type", "--ep_type"}, paramLabel = "TYPE",
            converter = EpTypeConverter.class, description = "Endpoint type: msg, rdm or dgram.")
    EpType epType;

    @CommandLine.Option(names = {"-c", "--caps"}, paramLabel = "CAPS",
            description = "Capabilities, e.g. 'FI_MSG|FI_TAGGED'.")
    String caps;

    @CommandLine.Option(names = {"-n", "--node"}, paramLabel = "NODE", description = "Node name or address.")
    String node;

    @CommandLine.Option(names = {"-s", "-P", "--service", "--port"}, paramLabel = "SERVICE",
            description = "Service name or port.")
    String service;

    @CommandLine.Option(names = "--source",
            description = "NODE and SERVICE name the local address (FI_SOURCE).")
    boolean source;

    @CommandLine.Option(names = {"-v", "--verbose"}, description = "Every attribute (fi_info -v).")
    boolean verbose;

    @Override
    protected int execute() {
        Fabrics fabrics = context().requireFabrics();
        List<ProviderInfo> providers = fabrics.providers();
        if (list) {
            ProviderList.print(providers, out());
            return ExitStatus.OK;
        }
        if (providers.isEmpty()) {
            throw new CommandFailure("no providers: " + ProviderList.NONE_REASON);
        }
        List<Info> infos;
        try {
            infos = fabrics.getInfo(node, service, source ? Fi.FI_SOURCE : 0, hints());
        } catch (FabricException e) {
            throw new CommandFailure(e.getMessage());
        }
        for (Info info : infos) {
            out().println(verbose ? info.toString() : info.toShortString());
        }
        return ExitStatus.OK;
    }

    /** The hints the options ask for; {@code null} when none was given, as fi_info does. */
    private Info hints() {
        if (provider == null && epType == null && caps == null) {
            return null;
        }
        Info hints = new Info();
        if (provider != null) {
            hints.fabricAttr().provName(provider);
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
