package io.jofi.tools;

import io.jofi.Fabrics;
import java.util.List;
import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The jofi commands in the Gogo shell: {@code jofi:info -l}, {@code jofi:providers stop tcp}.
 * Each method hands its arguments to {@link Commands}; output goes to the session's streams
 * (Gogo redirects {@code System.out}/{@code System.err} per session).
 */
@Component(service = JofiCommands.class, property = {
        "osgi.command.scope=jofi",
        "osgi.command.function=info",
        "osgi.command.function=providers",
        "osgi.command.function=pingpong",
        "osgi.command.function=bw",
        "osgi.command.function=rma_bw",
        "osgi.command.function=stat",
        "osgi.command.function=ft"})
public class JofiCommands {
    private final BundleContext bundleContext;

    @Reference(policy = ReferencePolicy.DYNAMIC)
    private volatile Fabrics fabrics;

    @Activate
    public JofiCommands(BundleContext bundleContext) {
        this.bundleContext = bundleContext;
    }

    @Descriptor("like fi_info: -l providers; -e settings; -p PROV, -t EPTYPE, -c CAPS, -d DOMAIN, -f FABRIC hints; -n NODE, -P PORT, -s SRC_ADDR; -v all attributes; --version; --help")
    public void info(@Descriptor("options") String... args) {
        run("info", args);
    }

    @Descriptor("list providers, or start|stop|update NAME (hot swap), printing getInfo before and after; --help")
    public void providers(@Descriptor("[list | start|stop|update NAME]") String... args) {
        run("providers", args);
    }

    @Descriptor("ping-pong latency as fabtests' fi_msg_pingpong: -p PROV -e msg -S SIZE|all -I ITERS -w WARMUP -c spin|sread|fd|yield -B/-P PORT -s ADDR -m -v (data check) --percentiles --tagged [SERVER]; --help")
    public void pingpong(@Descriptor("options [SERVER]") String... args) {
        run("pingpong", args);
    }

    @Descriptor("bandwidth as fabtests' fi_msg_bw (-I messages, an ack after every -W), options as pingpong plus -W WINDOW; --help")
    public void bw(@Descriptor("options [SERVER]") String... args) {
        run("bw", args);
    }

    @Descriptor("RMA bandwidth as fabtests' fi_rma_bw: -o write|read|writedata, -U, -W WINDOW, options as pingpong; --help")
    public void rma_bw(@Descriptor("options [SERVER]") String... args) {
        run("rma_bw", args);
    }

    @Descriptor("live counters of every JOFI JVM on this machine: -n one snapshot, -m machine-readable, -i SECONDS, -p PID, -f TEXT; --help")
    public void stat(@Descriptor("options") String... args) {
        run("stat", args);
    }

    @Descriptor("a fabtests functional program (fi_msg, fi_rdm, fi_cq_data, ...) with its fabtests options: ft PROGRAM [OPTIONS] [SERVER]; --timeout SECONDS")
    public void ft(@Descriptor("PROGRAM [options] [SERVER]") String... args) {
        run("ft", args);
    }

    private void run(String command, String[] args) {
        Commands.run(command, List.of(args), new CommandContext(fabrics, bundleContext, System.out, System.err));
    }
}
