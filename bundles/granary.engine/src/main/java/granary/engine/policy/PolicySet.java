package granary.engine.policy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import granary.api.model.InvalidRequestException;
import granary.api.model.Text;
import granary.api.spi.PolicyInfo;
import granary.api.spi.Admission;
import granary.api.spi.CycleAction;
import granary.api.spi.EngineView;
import granary.api.spi.ExtensionPoint;
import granary.api.spi.GangPlacement;
import granary.api.spi.GroupOrder;
import granary.api.spi.GroupResolver;
import granary.api.spi.NodeFilter;
import granary.api.spi.Policy;
import granary.api.spi.Reconfigurable;
import granary.api.spi.SubmitFilter;
import granary.api.spi.UnitOrder;

/**
 * Which policies are installed, which the operator selected, and which are in effect at each
 * extension point. Desired state (the selection) is kept apart from actual state (what is
 * installed), the way a reconciler does: a selected policy that goes away is replaced by the
 * fallback of its exclusive points, and takes over again when it comes back.
 *
 * <p>Rules. Exclusive point: the last selected policy that is installed and implements it; else the
 * first installed policy of the fallback order that implements it; else none (the point waits).
 * Composable point: every selected, installed policy that implements it, by name.
 */
public final class PolicySet {

    /** One installed implementation. */
    private record Installed(Policy policy, String origin, Set<ExtensionPoint> points) {
    }

    private final Map<String, Deque<Installed>> installed = new TreeMap<>();
    /** Per policy name, its last refused configuration, until an instance of it is installed. */
    private final Map<String, String> problems = new TreeMap<>();
    private final List<String> selected = new ArrayList<>();
    private List<String> fallback = List.of();
    private final List<String> builtIns = new ArrayList<>();
    private final Map<ExtensionPoint, List<Policy>> effective = new EnumMap<>(ExtensionPoint.class);
    private final Set<Policy> attached = Collections.newSetFromMap(new IdentityHashMap<>());
    private final List<Policy> attachOrder = new ArrayList<>();
    private final EngineView view;

    // cached for the decision path
    private UnitOrder unitOrder;
    private GroupOrder groupOrder;
    private GroupResolver groupResolver;
    private GangPlacement gangPlacement;
    private Admission[] admissions = new Admission[0];
    private NodeFilter[] nodeFilters = new NodeFilter[0];
    private SubmitFilter[] submitFilters = new SubmitFilter[0];
    private CycleAction[] cycleActions = new CycleAction[0];

    public PolicySet(EngineView view) {
        this.view = view;
        for (ExtensionPoint p : ExtensionPoint.values()) {
            effective.put(p, List.of());
        }
    }

    /** Sets the selection and fallback order from configuration; returns the changes. */
    public List<String> configure(List<String> policies, List<String> fallbackOrder) {
        for (String n : policies) {
            requireName(n);
        }
        selected.clear();
        for (String n : policies) {
            selected.remove(n);
            selected.add(n);
        }
        fallback = List.copyOf(fallbackOrder);
        return recompute();
    }

    /** Installs the policies that ship with the engine (the hunger group order, flat groups). */
    public List<String> installBuiltIns(String origin) {
        List<String> changes = new ArrayList<>(installBuiltIn(new HungerOrder(), origin));
        changes.addAll(installBuiltIn(new FlatGroups(), origin));
        return changes;
    }

    /** Installs a policy that ships with the engine: the last fallback of its exclusive points. */
    private List<String> installBuiltIn(Policy p, String origin) {
        builtIns.add(p.name());
        return install(p, origin);
    }

    public List<String> install(Policy p, String origin) {
        problems.remove(p.name());   // a working instance: its configuration was accepted
        requireName(p.name());
        installed.computeIfAbsent(p.name(), k -> new ArrayDeque<>())
                .push(new Installed(p, origin, ExtensionPoint.of(p)));
        return recompute();
    }

    public List<String> uninstall(Policy p) {
        Deque<Installed> d = installed.get(p.name());
        if (d == null || !d.removeIf(i -> i.policy() == p)) {
            return List.of();
        }
        if (d.isEmpty()) {
            installed.remove(p.name());
        }
        return recompute();
    }

    /**
     * A policy's configuration was refused (docs/operations.md, "Fail closed"). Kept until an
     * instance of that policy is installed; while the policy is selected and not installed, the
     * engine holds.
     */
    public void failed(String name, String problem) {
        problems.put(name, problem);
    }

    /** Why the engine must not schedule now: empty unless a selected policy failed and is missing. */
    public List<String> held() {
        if (problems.isEmpty()) {
            return List.of();
        }
        List<String> reasons = new ArrayList<>();
        for (String n : selected) {
            if (problems.containsKey(n) && !installed.containsKey(n)) {
                reasons.add("policy " + n + " is selected but its configuration was refused: " + problems.get(n));
            }
        }
        return reasons;
    }

    /** Every policy's last refused configuration, by name. */
    public Map<String, String> problems() {
        return Map.copyOf(problems);
    }

    /**
     * The installed policy whose code raised {@code fault} (found on its stack trace by the policy
     * class's package), or null. Built-in policies are never blamed.
     */
    public Policy culprit(Throwable fault) {
        for (StackTraceElement f : fault.getStackTrace()) {
            for (Deque<Installed> d : installed.values()) {
                Policy p = d.peek().policy();
                if (!builtIns.contains(p.name()) && f.getClassName().startsWith(p.getClass().getPackageName() + ".")) {
                    return p;
                }
            }
        }
        return null;
    }

    /** Selects a policy, deselecting those it replaces at its exclusive points. */
    public List<String> activate(String name) {
        Installed target = requireInstalled(name);
        selected.removeIf(other -> {
            Installed o = current(other);
            return o != null && !other.equals(name) && o.points().stream()
                    .anyMatch(pt -> pt.exclusive() && target.points().contains(pt));
        });
        selected.remove(name);
        selected.add(name);
        return recompute();
    }

    public List<String> deactivate(String name) {
        if (current(name) == null && selected.contains(name)) {
            // selected but not installed (e.g. its configuration was refused): deselecting it is how
            // an operator releases a fail-closed hold on purpose
            selected.remove(name);
            List<String> changes = new ArrayList<>(recompute());
            changes.add("deselected " + name + " (not installed)");
            return changes;
        }
        requireInstalled(name);
        selected.remove(name);
        return recompute();
    }

    /** The installed policy of that name, or null. */
    public Policy installed(String name) {
        Installed i = current(name);
        return i == null ? null : i.policy();
    }

    private Installed current(String name) {
        Deque<Installed> d = installed.get(name);
        return d == null ? null : d.peek();
    }

    private Installed requireInstalled(String name) {
        Installed i = current(name);
        if (i == null) {
            throw new InvalidRequestException("policy " + Text.escape(name), "name",
                    "unknown policy '" + Text.escape(name) + "'; known: " + String.join(", ", installed.keySet()));
        }
        return i;
    }

    private static void requireName(String n) {
        if (n == null || !n.matches("[a-z][a-z0-9-]*")) {
            throw new InvalidRequestException("policy " + Text.escape(n), "name",
                    "'" + Text.escape(n) + "' is not a policy name: lower-case letters, digits and '-'");
        }
    }

    /** Recomputes what is in effect, attaches and detaches, and returns one line per changed point. */
    private List<String> recompute() {
        Map<ExtensionPoint, List<Policy>> next = new EnumMap<>(ExtensionPoint.class);
        for (ExtensionPoint p : ExtensionPoint.values()) {
            next.put(p, p.exclusive() ? exclusive(p) : composable(p));
        }
        List<String> changes = new ArrayList<>();
        for (ExtensionPoint p : ExtensionPoint.values()) {
            List<Policy> before = effective.get(p);
            List<Policy> after = next.get(p);
            if (!sameInstances(before, after)) {
                String note = names(before).equals(names(after)) ? " (reloaded)" : "";
                changes.add(p.id() + ": " + names(before) + " -> " + names(after) + note);
            }
        }
        // in point order, then policy order: attach and detach happen in a deterministic order
        Set<Policy> now = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Policy> ordered = new ArrayList<>();
        for (List<Policy> ps : next.values()) {
            for (Policy p : ps) {
                if (now.add(p)) {
                    ordered.add(p);
                }
            }
        }
        for (Policy p : new ArrayList<>(attachOrder)) {
            if (!now.contains(p)) {
                attached.remove(p);
                attachOrder.remove(p);
                p.detach();
            }
        }
        effective.putAll(next);
        cache();   // before attach: a policy may ask the view (e.g. resolve a group) in attach
        for (Policy p : ordered) {
            if (attached.add(p)) {
                attachOrder.add(p);
                p.attach(view);
            }
        }
        return changes;
    }

    private List<Policy> exclusive(ExtensionPoint p) {
        for (int i = selected.size() - 1; i >= 0; i--) {
            Installed in = current(selected.get(i));
            if (in != null && in.points().contains(p)) {
                return List.of(in.policy());
            }
        }
        for (List<String> order : List.of(fallback, builtIns)) {
            for (String name : order) {
                Installed in = current(name);
                if (in != null && in.points().contains(p)) {
                    return List.of(in.policy());
                }
            }
        }
        return List.of();
    }

    private List<Policy> composable(ExtensionPoint p) {
        return selected.stream().sorted().map(this::current).filter(Objects::nonNull)
                .filter(in -> in.points().contains(p)).map(Installed::policy).collect(Collectors.toList());
    }

    private static boolean sameInstances(List<Policy> a, List<Policy> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (a.get(i) != b.get(i)) {
                return false;
            }
        }
        return true;
    }

    private static String names(List<Policy> ps) {
        return ps.isEmpty() ? "(none)" : ps.stream().map(Policy::name).collect(Collectors.joining(","));
    }

    private void cache() {
        unitOrder = (UnitOrder) single(ExtensionPoint.UNIT_ORDER);
        groupOrder = (GroupOrder) single(ExtensionPoint.GROUP_ORDER);
        groupResolver = (GroupResolver) single(ExtensionPoint.GROUP_RESOLVER);
        gangPlacement = (GangPlacement) single(ExtensionPoint.GANG_PLACEMENT);
        admissions = effective.get(ExtensionPoint.ADMISSION).toArray(new Admission[0]);
        nodeFilters = effective.get(ExtensionPoint.NODE_FILTER).toArray(new NodeFilter[0]);
        submitFilters = effective.get(ExtensionPoint.SUBMIT_FILTER).toArray(new SubmitFilter[0]);
        cycleActions = effective.get(ExtensionPoint.CYCLE_ACTION).toArray(new CycleAction[0]);
    }

    private Policy single(ExtensionPoint p) {
        List<Policy> l = effective.get(p);
        return l.isEmpty() ? null : l.get(0);
    }

    public UnitOrder unitOrder() {
        return unitOrder;
    }

    public GroupOrder groupOrder() {
        return groupOrder;
    }

    public GroupResolver groupResolver() {
        return groupResolver;
    }

    /** Hands settings to the installed policy {@code name}; returns its notes. */
    public List<String> reconfigure(String name, Object settings) {
        Installed in = requireInstalled(name);
        if (!(in.policy() instanceof Reconfigurable r)) {
            throw new InvalidRequestException("policy " + name, "settings", "policy '" + name
                    + "' takes no settings at run time");
        }
        return r.reconfigure(settings, view);
    }

    public GangPlacement gangPlacement() {
        return gangPlacement;
    }

    public Admission[] admissions() {
        return admissions;
    }

    public NodeFilter[] nodeFilters() {
        return nodeFilters;
    }

    public SubmitFilter[] submitFilters() {
        return submitFilters;
    }

    public CycleAction[] cycleActions() {
        return cycleActions;
    }

    /** Per point id: the policies in effect, {@code waiting} for a required point with none, {@code none} otherwise. */
    public Map<String, String> status() {
        Map<String, String> m = new TreeMap<>();
        for (ExtensionPoint p : ExtensionPoint.values()) {
            List<Policy> l = effective.get(p);
            m.put(p.id(), l.isEmpty() ? (p.exclusive() ? "waiting" : "none") : names(l));
        }
        return m;
    }

    public List<PolicyInfo> infos() {
        List<PolicyInfo> out = new ArrayList<>();
        for (Map.Entry<String, Deque<Installed>> e : installed.entrySet()) {
            Installed in = e.getValue().peek();
            List<String> points = in.points().stream().map(ExtensionPoint::id).collect(Collectors.toList());
            out.add(new PolicyInfo(e.getKey(), points, in.origin(), selected.contains(e.getKey()),
                    attached.contains(in.policy())));
        }
        return out;
    }

    /** Names of selected policies, in selection order. */
    Set<String> selection() {
        return new LinkedHashSet<>(selected);
    }
}
