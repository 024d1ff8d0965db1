package io.jofi.tools;

import io.jofi.FabricException;
import io.jofi.Fabrics;
import io.jofi.Info;
import java.util.List;

/** What {@code getInfo} without hints returns, one line per info: provider and endpoint type. */
final class InfoSummary {
    private InfoSummary() {
    }

    /** {@code ["tcp FI_EP_MSG", "tcp FI_EP_RDM"]}, or {@code ["none"]}. */
    static List<String> lines(Fabrics fabrics) {
        List<Info> infos;
        try {
            infos = fabrics.getInfo(null, null, 0, null);
        } catch (FabricException e) {
            return List.of("none");
        }
        if (infos.isEmpty()) {
            return List.of("none");
        }
        return infos.stream().map(InfoSummary::line).toList();
    }

    private static String line(Info info) {
        String provider = info.fabricAttr() == null ? "(null)" : info.fabricAttr().provName();
        String type = info.epAttr() == null || info.epAttr().type() == null ? "(null)" : info.epAttr().type().fiName();
        return provider + " " + type;
    }
}
