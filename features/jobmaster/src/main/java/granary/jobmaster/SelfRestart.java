package granary.jobmaster;

import granary.api.model.Names;
import granary.api.model.Resources;
import granary.protocol.Program;
import granary.protocol.Request;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The sample job master's own restart spec ({@code --restartable}, docs/recovery.md "Restarting a
 * lost job master"): the command line it was started with — this JVM's {@code java}, its class
 * path and main class, the same options — in its working directory, so that relative paths (the
 * token file, the jar) mean the same; and the node it runs on when an agent started it
 * ({@code GRANARY_NODE}), which the master's next start avoids.
 */
final class SelfRestart {

    private SelfRestart() {
    }

    static Request.Restart spec(Resources slot, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Main.class.getName());
        command.addAll(List.of(args));
        String node = System.getenv("GRANARY_NODE");
        Program program = new Program(command, Map.of(), Path.of("").toAbsolutePath().toString());
        return new Request.Restart(program, slot, node != null && Names.isValid(node) ? node : null);
    }
}
