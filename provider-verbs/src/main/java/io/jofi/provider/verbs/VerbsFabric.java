package io.jofi.provider.verbs;

import io.jofi.Errno;
import io.jofi.Fabric;
import io.jofi.FabricAttr;
import io.jofi.FabricException;

/** The verbs fabric (MSG endpoints over RC queue pairs come with step 4 of the issue). */
final class VerbsFabric {
    private VerbsFabric() {
    }

    static Fabric open(FabricAttr attr, Object context, VerbsProvider provider) throws FabricException {
        throw new FabricException(Errno.ENOSYS, "verbs: fabrics are not implemented yet");
    }
}
