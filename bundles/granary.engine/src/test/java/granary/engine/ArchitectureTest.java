package granary.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The engine's shape, read from its compiled classes (docs/architecture.md, "The engine"): no two
 * classes use each other, except the pairs below, and the engine's packages form no cycle.
 *
 * <p>Dependencies come from each class file's constant pool: the classes it names and every type in
 * its field and method descriptors and generic signatures. A nested class counts as its top-level
 * class. Comments and {@code @link}s are not in class files, so they do not count.
 */
class ArchitectureTest {

    private static final String ROOT = "granary/engine/";

    /**
     * Pairs that may use each other, each with its reason. All are intrusive links of hot-path
     * structures: replacing them by a side table would add a lookup to every grant or queue operation.
     */
    private static final Map<String, String> ALLOWED = Map.of(
            pair("granary.engine.state.NodeState", "granary.engine.state.UnitState"),
            "the grant book kept from both sides (a node's units, a unit's nodes); only Allocator writes it",
            pair("granary.engine.state.HeldGrants", "granary.engine.state.NodeState"),
            "a unit's entry on a node is linked into the node's list too, so a grant or a return costs one lookup, not one per side",
            pair("granary.engine.state.HeldGrants", "granary.engine.state.UnitState"),
            "a unit's entries name their unit, for the node that lists them; only Allocator writes them",
            pair("granary.engine.state.FitQueue", "granary.engine.state.UnitState"),
            "a queued unit carries its bucket and heap position, so the queue removes it in O(log n) without a search");

    private static Map<String, Set<String>> uses;

    @BeforeAll
    static void readClasses() throws IOException, URISyntaxException {
        Path classes = Path.of(Engine.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(classes.resolve(ROOT))) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                String name = topLevel(classes.relativize(f).toString().replace('\\', '/').replace(".class", ""));
                if (name.endsWith("package-info")) {
                    continue;
                }
                try (InputStream in = Files.newInputStream(f)) {
                    Set<String> targets = uses.computeIfAbsent(name, k -> new TreeSet<>());
                    for (String t : referencedClasses(in)) {
                        String top = topLevel(t);
                        if (top.startsWith(ROOT) && !top.equals(name)) {
                            targets.add(top);
                        }
                    }
                }
            }
        }
        assertTrue(uses.size() > 20, "expected the engine's classes under " + classes + ", found " + uses.keySet());
        assertTrue(uses.get(ROOT + "Engine").contains(ROOT + "view/EngineContext"), "the reader finds no dependency");
    }

    @Test
    void noTwoClassesUseEachOther() {
        List<String> found = new ArrayList<>();
        Set<String> allowedSeen = new TreeSet<>();
        uses.forEach((a, targets) -> {
            for (String b : targets) {
                if (a.compareTo(b) < 0 && uses.getOrDefault(b, Set.of()).contains(a)) {
                    String key = dotted(a) + " <-> " + dotted(b);
                    if (ALLOWED.containsKey(key)) {
                        allowedSeen.add(key);
                    } else {
                        found.add(key);
                    }
                }
            }
        });
        assertEquals(List.of(), found, "classes that use each other (cut one direction, or allow the pair with a reason)");
        assertEquals(ALLOWED.keySet(), allowedSeen, "an allowed pair no longer uses each other: drop it from ALLOWED");
    }

    @Test
    void packagesFormNoCycle() {
        Map<String, Set<String>> packages = new TreeMap<>();
        uses.forEach((a, targets) -> {
            Set<String> out = packages.computeIfAbsent(pkg(a), k -> new TreeSet<>());
            for (String b : targets) {
                if (!pkg(b).equals(pkg(a))) {
                    out.add(pkg(b));
                }
            }
        });
        assertTrue(packages.size() >= 6, "expected the engine's sub-packages, found " + packages.keySet());
        Map<String, Integer> state = new TreeMap<>();   // 1 = on the path, 2 = done
        for (String p : packages.keySet()) {
            List<String> cycle = cycleFrom(p, packages, state, new ArrayList<>());
            assertEquals(List.of(), cycle, "package cycle");
        }
    }

    /** Depth-first search; returns the packages of a cycle reachable from {@code p}, or an empty list. */
    private static List<String> cycleFrom(String p, Map<String, Set<String>> graph, Map<String, Integer> state,
                                          List<String> path) {
        Integer s = state.get(p);
        if (s != null) {
            if (s == 2) {
                return List.of();
            }
            List<String> cycle = new ArrayList<>(path.subList(path.indexOf(p), path.size()));
            cycle.add(p);
            return cycle;
        }
        state.put(p, 1);
        path.add(p);
        for (String q : graph.getOrDefault(p, Set.of())) {
            List<String> c = cycleFrom(q, graph, state, path);
            if (!c.isEmpty()) {
                return c;
            }
        }
        path.remove(path.size() - 1);
        state.put(p, 2);
        return List.of();
    }

    // ---- a minimal class-file constant-pool reader (the class-file format, Java Virtual Machine Specification chapter 4.4) ----

    private static final Pattern TYPE_IN_DESCRIPTOR = Pattern.compile("L([\\w/$]+)[;<]");

    /** Internal names of the classes a class file refers to: class entries and types in descriptors and signatures. */
    static Set<String> referencedClasses(InputStream raw) throws IOException {
        DataInputStream in = new DataInputStream(raw);
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();   // minor
        in.readUnsignedShort();   // major
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        List<Integer> classIndexes = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> utf8[i] = in.readUTF();
                case 7 -> classIndexes.add(in.readUnsignedShort());                 // Class
                case 8, 16, 19, 20 -> in.readUnsignedShort();                        // String, MethodType, Module, Package
                case 15 -> { in.readUnsignedByte(); in.readUnsignedShort(); }        // MethodHandle
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();                   // Integer, Float, refs, NameAndType, dynamic
                case 5, 6 -> { in.readLong(); i++; }                                 // Long, Double take two slots
                default -> throw new IOException("unknown constant pool tag " + tag + " at " + i);
            }
        }
        Set<String> out = new TreeSet<>();
        for (int idx : classIndexes) {
            String n = utf8[idx];
            if (n.startsWith("[")) {
                addTypes(n, out);
            } else {
                out.add(n);
            }
        }
        for (String s : utf8) {
            if (s != null && (s.startsWith("(") || s.startsWith("L") || s.startsWith("[") || s.startsWith("<"))) {
                addTypes(s, out);   // descriptors and generic signatures
            }
        }
        return out;
    }

    private static void addTypes(String descriptor, Set<String> out) {
        Matcher m = TYPE_IN_DESCRIPTOR.matcher(descriptor);
        while (m.find()) {
            out.add(m.group(1));
        }
    }

    private static String topLevel(String internalName) {
        int d = internalName.indexOf('$');
        return d < 0 ? internalName : internalName.substring(0, d);
    }

    private static String pkg(String internalName) {
        return dotted(internalName.substring(0, internalName.lastIndexOf('/')));
    }

    private static String dotted(String internalName) {
        return internalName.replace('/', '.');
    }

    private static String pair(String a, String b) {
        return a.compareTo(b) < 0 ? a + " <-> " + b : b + " <-> " + a;
    }
}
