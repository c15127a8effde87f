package granary.planner.table.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;

import granary.policy.quota.api.GroupQuota;
import granary.policy.quota.api.Quota;
import granary.policy.quota.api.TimeSlice;
import granary.policy.quota.api.WorkerSpans;

/**
 * A quota table being edited: its slices in file order, each with its groups' quotas in file order;
 * the groups as rows of the timeline; and the WorkerSpans per slice. Unlike a
 * {@link granary.policy.quota.api.QuotaTable} a draft may be invalid — slices may overlap, a
 * MinQuota may exceed the WorkerSpans — so that it can be drawn step by step; {@link #raw()} and
 * {@link #workerSpans()} hand it to {@code QuotaTable.of} for validation.
 *
 * <p>The WorkerSpans are the cluster's worker count per slice, given with the table (by a master, or
 * typed in): a fact to draw against, not part of the plan. So moving or removing a slice never
 * changes them — a slice moved off the hours of its WorkerSpans entry falls back to the default
 * entry, and validation says so — and only {@link #withSpans} does.
 *
 * <p>A draft is immutable: every edit returns a new one (or this one if the edit changes nothing),
 * so undo is a stack of drafts and "unchanged since it was loaded" is plain equality.
 */
public record Draft(List<SliceRow> slices, List<GroupRow> groups, List<Span> spans) {

    public Draft {
        slices = List.copyOf(slices);
        groups = List.copyOf(groups);
        spans = List.copyOf(spans);
    }

    /** A table with an empty default slice: valid, and every hour is in it. */
    public static Draft empty() {
        return new Draft(List.of(new SliceRow(TimeSlice.DEFAULT, List.of())), List.of(), List.of());
    }

    /**
     * A draft of slices as read (slice → cells in order) with the given WorkerSpans (null: none);
     * the groups are listed in the order they first appear.
     */
    public static Draft of(List<SliceRow> slices, WorkerSpans workerSpans) {
        Map<String, GroupRow> groups = new LinkedHashMap<>();
        for (SliceRow s : slices) {
            for (GroupQuota c : s.cells()) {
                groups.putIfAbsent(c.group(), new GroupRow(c.group(), c.groupId()));
            }
        }
        List<Span> spans = new ArrayList<>();
        if (workerSpans != null) {
            workerSpans.entries().forEach((s, n) -> spans.add(new Span(s, n)));
        }
        return new Draft(slices, List.copyOf(groups.values()), spans);
    }

    // ---- reading

    /** The row of {@code slice}, or null. */
    public SliceRow slice(TimeSlice slice) {
        return slices.stream().filter(s -> s.slice().equals(slice)).findFirst().orElse(null);
    }

    /** The group's quota in a slice, or null if the slice does not fund it (or does not exist). */
    public GroupQuota cell(TimeSlice slice, String group) {
        SliceRow s = slice(slice);
        return s == null ? null : s.cell(group);
    }

    public GroupRow group(String name) {
        return groups.stream().filter(g -> g.name().equals(name)).findFirst().orElse(null);
    }

    public int groupIndex(String name) {
        for (int i = 0; i < groups.size(); i++) {
            if (groups.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** The slice in force at {@code hour}: the first range covering it, else {@code default} if the draft has it, else null. */
    public TimeSlice sliceAt(int hour) {
        for (SliceRow s : slices) {
            if (s.slice().covers(hour)) {
                return s.slice();
            }
        }
        return slice(TimeSlice.DEFAULT) != null ? TimeSlice.DEFAULT : null;
    }

    /** The slices in the order the keyboard walks them: default first, then the ranges by their first hour. */
    public List<TimeSlice> byHour() {
        List<TimeSlice> out = new ArrayList<>(slices.stream().map(SliceRow::slice).toList());
        out.sort(java.util.Comparator.comparingInt(TimeSlice::from));
        return out;
    }

    /** True if every quota counts workers; a draft of resource vectors is shown, not edited. */
    public boolean workerForm() {
        return slices.stream().flatMap(s -> s.cells().stream())
                .allMatch(c -> c.min().isWorkers() && c.max().isWorkers());
    }

    /** The input of {@code QuotaTable.of}: slice key → group → quota, in draft order. */
    public Map<String, Map<String, GroupQuota>> raw() {
        Map<String, Map<String, GroupQuota>> raw = new LinkedHashMap<>();
        for (SliceRow s : slices) {
            Map<String, GroupQuota> m = new LinkedHashMap<>();
            s.cells().forEach(c -> m.put(c.group(), c));
            raw.put(s.slice().toString(), m);
        }
        return raw;
    }

    /** The WorkerSpans, or null if the draft has none. */
    public WorkerSpans workerSpans() {
        if (spans.isEmpty()) {
            return null;
        }
        Map<TimeSlice, Long> m = new LinkedHashMap<>();
        spans.forEach(s -> m.put(s.slice(), s.workers()));
        return WorkerSpans.of(m);
    }

    /** The WorkerSpans entry in force for a slice: its own, else the default one, else null (as {@link WorkerSpans#at}). */
    public Long spansAt(TimeSlice slice) {
        Long own = null;
        Long dflt = null;
        for (Span s : spans) {
            if (s.slice().equals(slice)) {
                own = s.workers();
            } else if (s.slice().isDefault()) {
                dflt = s.workers();
            }
        }
        return own != null ? own : dflt;
    }

    /** Each slice's ΣMin, ΣMax and WorkerSpans (worker counts; resource quotas count as 0). */
    public List<SliceLoad> loads() {
        List<SliceLoad> out = new ArrayList<>();
        for (SliceRow s : slices) {
            long min = 0;
            long max = 0;
            for (GroupQuota c : s.cells()) {
                min += c.min().isWorkers() ? c.min().workers() : 0;
                max += c.max().isWorkers() ? c.max().workers() : 0;
            }
            out.add(new SliceLoad(s.slice(), min, max, spansAt(s.slice())));
        }
        return out;
    }

    public SliceLoad load(TimeSlice slice) {
        return loads().stream().filter(l -> l.slice().equals(slice)).findFirst().orElse(null);
    }

    // ---- editing

    /**
     * Sets a group's MinQuota and MaxQuota (worker counts) in a slice. A slice that does not fund
     * the group yet gets a cell with the group's id, appended; a slice not in the draft is appended.
     */
    public Draft withQuota(TimeSlice slice, String group, long min, long max) {
        GroupRow g = requireGroup(group);
        GroupQuota now = new GroupQuota(group, g.groupId(), Quota.workers(min), Quota.workers(max));
        return withCell(slice, now);
    }

    /**
     * Funds a group in a slice, as drawing it does: a new cell starts from the group's quota in the
     * default slice (so a drawn slice starts as "the same as usual"), or 0/0; an existing cell is kept.
     */
    public Draft withGroupIn(TimeSlice slice, String group) {
        if (cell(slice, group) != null) {
            return this;
        }
        GroupRow g = requireGroup(group);
        GroupQuota usual = cell(TimeSlice.DEFAULT, group);
        Quota zero = Quota.workers(0);
        return withCell(slice, new GroupQuota(group, g.groupId(), usual == null ? zero : usual.min(), usual == null ? zero : usual.max()));
    }

    private Draft withCell(TimeSlice slice, GroupQuota cell) {
        List<SliceRow> out = new ArrayList<>(slices);
        int i = indexOf(slice);
        if (i < 0) {
            out.add(new SliceRow(slice, List.of(cell)));
        } else {
            List<GroupQuota> cells = new ArrayList<>(out.get(i).cells());
            int j = cellIndex(cells, cell.group());
            if (j < 0) {
                cells.add(cell);
            } else {
                cells.set(j, new GroupQuota(cell.group(), cells.get(j).groupId(), cell.min(), cell.max()));
            }
            out.set(i, new SliceRow(slice, cells));
        }
        return new Draft(out, groups, spans);
    }

    /**
     * Stops funding a group in a slice. A range slice left with no group goes too: it was drawn
     * for its groups; the default slice stays, even empty.
     */
    public Draft withoutCell(TimeSlice slice, String group) {
        int i = indexOf(slice);
        if (i < 0 || slices.get(i).cell(group) == null) {
            return this;
        }
        List<SliceRow> out = new ArrayList<>(slices);
        List<GroupQuota> cells = new ArrayList<>(out.get(i).cells());
        cells.remove(cellIndex(cells, group));
        if (cells.isEmpty() && !slice.isDefault()) {
            return new Draft(out, groups, spans).withoutSlice(slice);
        }
        out.set(i, new SliceRow(slice, cells));
        return new Draft(out, groups, spans);
    }

    /** Removes a range slice; the default slice empties instead (a table needs it unless ranges cover the day). */
    public Draft withoutSlice(TimeSlice slice) {
        int i = indexOf(slice);
        if (i < 0) {
            return this;
        }
        List<SliceRow> out = new ArrayList<>(slices);
        if (slice.isDefault()) {
            out.set(i, new SliceRow(slice, List.of()));
            return new Draft(out, groups, spans);
        }
        out.remove(i);
        return new Draft(out, groups, spans);
    }

    /**
     * Gives a range slice other hours; all its groups move with it. Its WorkerSpans entry does not
     * follow (see the class comment). Refused ({@code this}) if another slice has exactly those hours (the file cannot hold
     * a key twice) or for the default slice. Overlaps are allowed: validation reports them.
     */
    public Draft withHours(TimeSlice slice, TimeSlice hours) {
        int i = indexOf(slice);
        if (i < 0 || slice.isDefault() || hours.isDefault() || slice.equals(hours) || indexOf(hours) >= 0) {
            return this;
        }
        List<SliceRow> out = new ArrayList<>(slices);
        out.set(i, new SliceRow(hours, out.get(i).cells()));
        return new Draft(out, groups, spans);
    }

    /** Adds a group row (funded nowhere yet). */
    public Draft withGroup(String name, int groupId) {
        if (group(name) != null) {
            throw new IllegalArgumentException("there is already a group " + name);
        }
        List<GroupRow> out = new ArrayList<>(groups);
        out.add(new GroupRow(name, groupId));
        return new Draft(slices, out, spans);
    }

    /** Renames a group in its row and in every slice; refused if the new name is taken. */
    public Draft renamedGroup(String name, String newName) {
        requireGroup(name);
        if (name.equals(newName)) {
            return this;
        }
        if (group(newName) != null) {
            throw new IllegalArgumentException("cannot rename " + name + " to " + newName + ": there is already a group " + newName);
        }
        return mapCells(name, c -> new GroupQuota(newName, c.groupId(), c.min(), c.max()),
                g -> new GroupRow(newName, g.groupId()));
    }

    /** Gives a group another GroupId, in its row and in every slice. */
    public Draft withGroupId(String name, int groupId) {
        requireGroup(name);
        return mapCells(name, c -> new GroupQuota(c.group(), groupId, c.min(), c.max()), g -> new GroupRow(g.name(), groupId));
    }

    /** Removes a group from every slice and its row; range slices it alone funded go too. */
    public Draft withoutGroup(String name) {
        requireGroup(name);
        Draft d = this;
        for (SliceRow s : slices) {
            d = d.withoutCell(s.slice(), name);
        }
        return new Draft(d.slices, d.groups.stream().filter(g -> !g.name().equals(name)).toList(), d.spans);
    }

    /** Sets (or with null removes) a slice's WorkerSpans entry. */
    public Draft withSpans(TimeSlice slice, Long workers) {
        List<Span> out = new ArrayList<>(spans);
        int i = -1;
        for (int k = 0; k < out.size(); k++) {
            if (out.get(k).slice().equals(slice)) {
                i = k;
            }
        }
        if (workers == null) {
            if (i >= 0) {
                out.remove(i);
            }
        } else if (i >= 0) {
            out.set(i, new Span(slice, workers));
        } else {
            out.add(new Span(slice, workers));
        }
        return new Draft(slices, groups, out);
    }

    /** Replaces every WorkerSpans entry (null: none). */
    public Draft withSpans(WorkerSpans workerSpans) {
        return new Draft(slices, groups, of(List.of(), workerSpans).spans);
    }

    private Draft mapCells(String name, UnaryOperator<GroupQuota> cell, UnaryOperator<GroupRow> row) {
        List<SliceRow> out = new ArrayList<>();
        for (SliceRow s : slices) {
            out.add(new SliceRow(s.slice(), s.cells().stream().map(c -> c.group().equals(name) ? cell.apply(c) : c).toList()));
        }
        return new Draft(out, groups.stream().map(g -> g.name().equals(name) ? row.apply(g) : g).toList(), spans);
    }

    private GroupRow requireGroup(String name) {
        GroupRow g = group(name);
        if (g == null) {
            throw new IllegalArgumentException("there is no group " + name);
        }
        return g;
    }

    private int indexOf(TimeSlice slice) {
        for (int i = 0; i < slices.size(); i++) {
            if (Objects.equals(slices.get(i).slice(), slice)) {
                return i;
            }
        }
        return -1;
    }

    private static int cellIndex(List<GroupQuota> cells, String group) {
        for (int j = 0; j < cells.size(); j++) {
            if (cells.get(j).group().equals(group)) {
                return j;
            }
        }
        return -1;
    }
}
