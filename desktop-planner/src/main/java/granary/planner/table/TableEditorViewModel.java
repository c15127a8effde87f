package granary.planner.table;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;

import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

import granary.api.model.InvalidRequestException;
import granary.codec.CodecException;
import granary.codec.json.JsonReader;
import granary.planner.table.model.CellRef;
import granary.planner.table.model.Draft;
import granary.planner.table.model.DraftJson;
import granary.planner.table.model.History;
import granary.planner.table.model.Hours;
import granary.planner.table.model.QuotaSources;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.QuotaTableCodec;
import granary.policy.quota.api.TimeSlice;
import granary.policy.quota.api.WorkerSpans;

/**
 * The quota table editor's state and commands (docs/planner.md): the draft being drawn, its
 * validation problems, the selected cell, undo and redo, and the file it came from.
 *
 * <p>Everything runs on the calling thread (the UI thread in the application): reading, validating
 * and writing a quota table takes microseconds, so no executor is needed.
 *
 * <p>Validation is {@code QuotaTable.of} on every change; its problems are listed with their slice
 * and group, and {@link #validTableProperty()} holds the table only while there are none, so the
 * shell can disable Push.
 *
 * <p>Files: a table read and saved without edits is written back byte for byte; an edited one is
 * written by {@code QuotaTableCodec.write} (see {@link DraftJson#write}). WorkerSpans are not part
 * of the table's format: they are saved beside it ({@link #spansFile}) and read back on open (without
 * that file, opening keeps the WorkerSpans being drawn against); changing them does not make the table
 * dirty.
 *
 * <p>Besides its problems, a draft has warnings: groups left with nothing for hours in which
 * {@code default} funds them ({@link QuotaSources}); they must be acknowledged before a push
 * ({@link #pushBlockerProperty()}). A failed load, open or save changes nothing in the editor and leaves its
 * reason in {@link #messageProperty()}. Loading or opening a table is one undoable step, so even a
 * successful open does not lose the previous draft.
 *
 * <p>Quotas that are resource vectors are shown but not edited (the timeline and chart draw worker
 * counts): such a table is read-only here, and every edit says so in the message.
 *
 * <p>Edit commands return whether they changed the draft; a refused edit (a name taken, a read-only
 * table) sets the message instead of throwing, so a key press cannot end in an exception.
 */
public final class TableEditorViewModel {

    private static final int HISTORY_STEPS = 1000;

    private final TableFileService files;
    private final History history = new History(HISTORY_STEPS);

    private final ReadOnlyObjectWrapper<Draft> draft = new ReadOnlyObjectWrapper<>(this, "draft", Draft.empty());
    private final ReadOnlyObjectWrapper<QuotaTable> validTable = new ReadOnlyObjectWrapper<>(this, "validTable");
    private final ReadOnlyBooleanWrapper valid = new ReadOnlyBooleanWrapper(this, "valid");
    private final ObservableList<TableProblem> problems = FXCollections.observableArrayList();
    private final ObservableList<TableProblem> problemsView = FXCollections.unmodifiableObservableList(problems);
    private final ObservableList<TableProblem> warnings = FXCollections.observableArrayList();
    private final ObservableList<TableProblem> warningsView = FXCollections.unmodifiableObservableList(warnings);
    private final ObservableList<TableProblem> listed = FXCollections.observableArrayList();
    private final ObservableList<TableProblem> listedView = FXCollections.unmodifiableObservableList(listed);
    /** The warnings' texts the planner acknowledged: a warning that changes must be acknowledged again. */
    private final java.util.Set<String> acknowledged = new java.util.HashSet<>();
    private final ReadOnlyObjectWrapper<SliceOffer> offer = new ReadOnlyObjectWrapper<>(this, "offer");
    private final ReadOnlyStringWrapper pushBlocker = new ReadOnlyStringWrapper(this, "pushBlocker");
    private final ReadOnlyBooleanWrapper dirty = new ReadOnlyBooleanWrapper(this, "dirty");
    private final ReadOnlyBooleanWrapper canUndo = new ReadOnlyBooleanWrapper(this, "canUndo");
    private final ReadOnlyBooleanWrapper canRedo = new ReadOnlyBooleanWrapper(this, "canRedo");
    private final ReadOnlyBooleanWrapper editable = new ReadOnlyBooleanWrapper(this, "editable", true);
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message");
    private final ReadOnlyObjectWrapper<Path> file = new ReadOnlyObjectWrapper<>(this, "file");
    private final ReadOnlyStringWrapper source = new ReadOnlyStringWrapper(this, "source", "untitled");
    private final ObjectProperty<CellRef> selection = new SimpleObjectProperty<>(this, "selection");

    /** The table as the file holds it (or as it was loaded): what "dirty" compares with. */
    private Draft saved = Draft.empty();
    /** The text and bytes {@link #saved} was read from or written as; null if it never was. */
    private String savedText;
    private byte[] savedBytes;
    /** The WorkerSpans as last saved beside the file (or opened from there). */
    private WorkerSpans savedSpans;
    /** The draft when a drag began: a whole drag is one undo step. */
    private Draft gestureStart;

    public TableEditorViewModel() {
        this(new TableFileService());
    }

    public TableEditorViewModel(TableFileService files) {
        this.files = files;
        show(draft.get());
    }

    // ---- loading and saving

    /**
     * Replaces the draft with a table read from text, as one undoable step. The table may break
     * the rules (its problems are listed); it must be the format's JSON.
     *
     * @param workerSpans e.g. {@code default:5000,0-9:15000}; null or blank for none
     * @param source names the text in messages (a file, a master)
     * @throws InvalidRequestException listing what is wrong and where ({@code file:line:column}); the draft is unchanged
     */
    public void load(String tableJson, String workerSpans, String source) {
        WorkerSpans spans;
        try {
            spans = QuotaTableCodec.workerSpans(workerSpans);
        } catch (InvalidRequestException e) {
            throw failed("cannot load " + source + ": ", e);
        }
        replace(tableJson, null, source, spans);
        file.set(null);
    }

    /**
     * Opens a table file, keeping the WorkerSpans drawn against; one undoable step.
     *
     * @throws InvalidRequestException if it is not a table (every problem with its line and column)
     * @throws UncheckedIOException if it cannot be read; in both cases the draft is unchanged
     */
    public void open(Path path) {
        byte[] bytes;
        String text;
        try {
            bytes = files.read(path);
            text = JsonReader.utf8(bytes, path.toString());
        } catch (UncheckedIOException | InvalidRequestException e) {
            message.set(e.getMessage());
            throw e;
        }
        WorkerSpans spans = draft.get().workerSpans();
        Path side = spansFile(path);
        String spansNote = null;
        if (java.nio.file.Files.isRegularFile(side)) {
            try {
                spans = QuotaTableCodec.workerSpans(new String(files.read(side), StandardCharsets.UTF_8).strip());
            } catch (UncheckedIOException | InvalidRequestException e) {
                spansNote = "the WorkerSpans beside the table (" + side.getFileName() + ") do not read, so the ones drawn against "
                        + "are kept: " + e.getMessage();
            }
        }
        replace(text, bytes, path.toString(), spans);
        file.set(path);
        savedSpans = draft.get().workerSpans();
        if (spansNote != null && message.get() == null) {
            message.set(spansNote);
            show(draft.get());
        }
    }

    /**
     * Where a table's WorkerSpans are kept beside it: {@code NAME.workerspans} for {@code NAME.json}, one
     * line in the format's WorkerSpans text ({@code default:5000,0-9:15000}); docs/planner.md, "The quota table editor".
     */
    public static Path spansFile(Path table) {
        String name = table.getFileName().toString();
        String base = name.endsWith(".json") ? name.substring(0, name.length() - ".json".length()) : name;
        return table.resolveSibling(base + ".workerspans");
    }

    private void replace(String text, byte[] bytes, String name, WorkerSpans spans) {
        Draft next;
        try {
            next = DraftJson.read(text, name, spans);
        } catch (InvalidRequestException e) {
            throw failed("", e);
        }
        endGesture();
        history.record(draft.get());
        saved = next;
        savedText = text;
        savedBytes = bytes;
        source.set(name);
        selection.set(null);
        message.set(next.workerForm() ? null : readOnlyReason());
        acknowledged.clear();
        offer.set(null);
        spansFix.set(null);
        show(next);
    }

    /**
     * Saves the table to {@code path}: the bytes it was read from if it is unchanged, else as
     * {@code QuotaTableCodec.write} writes it. A table with problems is saved too (they stay listed).
     *
     * @throws UncheckedIOException if the file cannot be written; the editor is unchanged
     */
    public void save(Path path) {
        Draft now = draft.get();
        String text = text();
        byte[] bytes = sameTable(now, saved) && savedBytes != null ? savedBytes : text.getBytes(StandardCharsets.UTF_8);
        try {
            files.write(path, bytes);
            WorkerSpans ws = now.workerSpans();
            if (ws != null) {
                files.write(spansFile(path), (ws + "\n").getBytes(StandardCharsets.UTF_8));
            } else {
                files.delete(spansFile(path));
            }
        } catch (UncheckedIOException e) {
            message.set(e.getMessage());
            throw e;
        }
        savedSpans = now.workerSpans();
        savedText = text;
        savedBytes = bytes;
        saved = now;
        file.set(path);
        source.set(path.toString());
        message.set(null);
        show(now);
    }

    private RuntimeException failed(String prefix, InvalidRequestException e) {
        String what = e instanceof CodecException c ? c.describe() : e.getMessage();
        message.set(prefix + what);
        return e;
    }

    /** The draft in the file's format: the text it was read from if its table is unchanged since. */
    public String text() {
        Draft now = draft.get();
        return sameTable(now, saved) && savedText != null ? savedText : DraftJson.write(now);
    }

    /** The draft's WorkerSpans as text ({@code default:5000,0-9:15000}), or null if it has none. */
    public String workerSpansText() {
        WorkerSpans ws = draft.get().workerSpans();
        return ws == null ? null : ws.toString();
    }

    /** The file is what is written: the slices and their cells (group rows without cells and WorkerSpans are not). */
    private static boolean sameTable(Draft a, Draft b) {
        return a.slices().equals(b.slices());
    }

    // ---- state

    public ReadOnlyObjectProperty<Draft> draftProperty() {
        return draft.getReadOnlyProperty();
    }

    public Draft draft() {
        return draft.get();
    }

    /** The validated table (with its WorkerSpans), null while the draft has problems. */
    public ReadOnlyObjectProperty<QuotaTable> validTableProperty() {
        return validTable.getReadOnlyProperty();
    }

    /** True while the draft has no problems: what Push needs. */
    public ReadOnlyBooleanProperty validProperty() {
        return valid.getReadOnlyProperty();
    }

    /** Every problem of the draft, placed at its slice and group. */
    public ObservableList<TableProblem> problems() {
        return problemsView;
    }

    /**
     * The warnings: each group left with nothing for hours in which {@code default} gives it a quota
     * ({@code group1 gets nothing 20:00-24:00 (it had 2000/5000 from default)}), acknowledged or not.
     */
    public ObservableList<TableProblem> warnings() {
        return warningsView;
    }

    /** What the problem list shows: the problems, then the warnings. */
    public ObservableList<TableProblem> listed() {
        return listedView;
    }

    /** Acknowledges a warning: the planner means it; it stays listed, and no longer stops a push. */
    public void acknowledge(TableProblem warning) {
        if (warning != null && warning.isWarning()) {
            acknowledged.add(warning.message());
            showWarnings();
        }
    }

    /** Acknowledges every warning listed now. */
    public void acknowledgeAll() {
        warnings.forEach(w -> acknowledged.add(w.message()));
        showWarnings();
    }

    /**
     * Why the draft cannot be pushed now, in the planner's words; null if it can: problems, a warning
     * not acknowledged, or a table that funds no group at all.
     */
    public ReadOnlyStringProperty pushBlockerProperty() {
        return pushBlocker.getReadOnlyProperty();
    }

    /**
     * After drawing a slice that leaves groups out which {@code default} funds: the offer to copy their
     * {@code default} entries into it. Null when there is none.
     */
    public ReadOnlyObjectProperty<SliceOffer> offerProperty() {
        return offer.getReadOnlyProperty();
    }

    /**
     * A slice with its own WorkerSpans entry was given other hours: the entry still names the old hours,
     * so the slice falls back to {@code default}. The planner moves it or keeps it; until then this says
     * what to fix. Null when there is nothing to fix.
     */
    public record SpansFix(TimeSlice from, TimeSlice to, long workers) {
        public String text() {
            return "The WorkerSpans entry " + from + ":" + workers + " is for hours slice " + to + " no longer has: " + to
                    + " falls back to the default entry. Move the entry to " + to + "?";
        }
    }

    private final ReadOnlyObjectWrapper<SpansFix> spansFix = new ReadOnlyObjectWrapper<>(this, "spansFix");

    public ReadOnlyObjectProperty<SpansFix> spansFixProperty() {
        return spansFix.getReadOnlyProperty();
    }

    /** Moves the WorkerSpans entry to the slice's new hours (one undoable step). */
    public boolean moveSpans() {
        SpansFix f = spansFix.get();
        if (f == null) {
            return false;
        }
        spansFix.set(null);
        return edit(d -> d.withSpans(f.from(), null).withSpans(f.to(), f.workers()));
    }

    /** Leaves the entry where it is (the slice uses the default entry). */
    public void keepSpans() {
        spansFix.set(null);
    }

    /** The offer made after a drawn slice left groups with nothing. */
    public record SliceOffer(TimeSlice slice, List<String> groups, String text) {
    }

    /** Copies the offered groups' {@code default} entries into the slice (one undoable step). */
    public boolean acceptOffer() {
        SliceOffer o = offer.get();
        if (o == null) {
            return false;
        }
        offer.set(null);
        return edit(d -> {
            Draft out = d;
            for (String g : o.groups()) {
                out = out.withGroupIn(o.slice(), g);
            }
            return out;
        });
    }

    /** Leaves the offered groups with nothing in the slice, on purpose: their warnings are acknowledged. */
    public void declineOffer() {
        SliceOffer o = offer.get();
        if (o == null) {
            return;
        }
        offer.set(null);
        for (TableProblem w : warnings) {
            if (o.groups().contains(w.group()) && w.slice() != null && w.slice().equals(o.slice())) {
                acknowledged.add(w.message());
            }
        }
        showWarnings();
    }

    /** True when saving would change the file (WorkerSpans are not in it). */
    public ReadOnlyBooleanProperty dirtyProperty() {
        return dirty.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty canUndoProperty() {
        return canUndo.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty canRedoProperty() {
        return canRedo.getReadOnlyProperty();
    }

    /** False for a table of resource vectors, which is shown but not edited. */
    public ReadOnlyBooleanProperty editableProperty() {
        return editable.getReadOnlyProperty();
    }

    /** Why the last command failed (what and where), or a note such as read-only; null when all is well. */
    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    /** The file last opened or saved; null for a table loaded from text. */
    public ReadOnlyObjectProperty<Path> fileProperty() {
        return file.getReadOnlyProperty();
    }

    /** Where the table came from, for a title: a file, a master, or {@code untitled}. */
    public ReadOnlyStringProperty sourceProperty() {
        return source.getReadOnlyProperty();
    }

    /** The selected cell, slice or group row. */
    public ObjectProperty<CellRef> selectionProperty() {
        return selection;
    }

    // ---- undo

    public void undo() {
        endGesture();
        if (history.canUndo()) {
            show(history.undo(draft.get()));
        }
    }

    public void redo() {
        endGesture();
        if (history.canRedo()) {
            show(history.redo(draft.get()));
        }
    }

    /** Starts a drag: the edits until {@link #endGesture()} are one undo step. */
    public void beginGesture() {
        if (gestureStart == null) {
            gestureStart = draft.get();
        }
    }

    public void endGesture() {
        if (gestureStart != null && !gestureStart.equals(draft.get())) {
            history.record(gestureStart);
        }
        gestureStart = null;
        updateFlags();
    }

    // ---- edits

    /** Sets a group's MinQuota and MaxQuota (workers) in a slice, funding it there if it was not. */
    public boolean setQuota(TimeSlice slice, String group, long min, long max) {
        return edit(d -> d.withQuota(slice, group, min, max));
    }

    /**
     * Funds a group from hour {@code from} to hour {@code to} (exclusive, either order), as drawing
     * on its row does. The hours may run past 24 or below 0 and wrap: (22, 26) is slice 22-2. If a
     * slice has exactly those hours the group joins it, else a new slice is made. Selects the cell.
     *
     * @return the slice, or null if the hours are empty or the edit was refused
     */
    public TimeSlice drawSlice(String group, int from, int to) {
        if (from == to) {
            return null;
        }
        TimeSlice s = Hours.between(from, to);
        if (!edit(d -> d.withGroupIn(s, group))) {
            return null;
        }
        selection.set(new CellRef(s, group));
        List<String> left = QuotaSources.leftOut(draft.get(), s);
        offer.set(left.isEmpty() ? null : new SliceOffer(s, left, "Slice " + s + " leaves " + String.join(", ", left)
                + " with nothing from " + String.format("%02d:00 to %02d:00", s.from(), s.to())
                + ": a slice replaces default whole. Copy their default entries into " + s + "?"));
        return s;
    }

    /**
     * Gives a range slice other hours; all its groups move with it. The selection follows.
     *
     * @return the slice's hours now: {@code slice} if refused (another slice has exactly those hours)
     */
    public TimeSlice setSliceHours(TimeSlice slice, TimeSlice hours) {
        CellRef sel = selection.get();
        Draft before = draft.get();
        SpansFix pending = spansFix.get();
        if (slice.isDefault() || !edit(d -> d.withHours(slice, hours))) {
            return slice;
        }
        TimeSlice origin = pending != null && pending.to().equals(slice) ? pending.from() : slice;
        Long own = ownSpans(before, origin);
        spansFix.set(own == null || origin.equals(hours) || ownSpans(draft.get(), hours) != null ? null
                : new SpansFix(origin, hours, own));
        if (sel != null && slice.equals(sel.slice())) {
            selection.set(new CellRef(hours, sel.group()));
        }
        return hours;
    }

    /** Moves a range slice's start and end by whole hours (wrapping past midnight; never empty). */
    public TimeSlice resizeSlice(TimeSlice slice, int startDelta, int endDelta) {
        if (slice.isDefault()) {
            return slice;
        }
        TimeSlice hours = Hours.moveEnd(Hours.moveStart(slice, startDelta), endDelta);
        return setSliceHours(slice, hours);
    }

    /** Stops funding a group in a slice; a range slice left empty goes. */
    public boolean removeFromSlice(TimeSlice slice, String group) {
        return edit(d -> d.withoutCell(slice, group));
    }

    /** Removes a range slice with all its cells; the default slice is emptied instead. */
    public boolean removeSlice(TimeSlice slice) {
        return edit(d -> d.withoutSlice(slice));
    }

    /** Adds a group {@code groupN} with the next free GroupId and selects its row; returns its name (null if refused). */
    public String addGroup() {
        Draft d = draft.get();
        int n = d.groups().size() + 1;
        while (d.group("group" + n) != null) {
            n++;
        }
        String name = "group" + n;
        return addGroup(name, nextGroupId(d)) ? name : null;
    }

    public boolean addGroup(String name, int groupId) {
        if (!edit(d -> d.withGroup(name, groupId))) {
            return false;
        }
        // the row alone, so that F2 or Enter goes on to rename it
        selection.set(new CellRef(null, name));
        return true;
    }

    private static int nextGroupId(Draft d) {
        int max = 0;
        for (var g : d.groups()) {
            max = Math.max(max, g.groupId());
        }
        for (var s : d.slices()) {
            for (var c : s.cells()) {
                max = Math.max(max, c.groupId());
            }
        }
        return max + 1;
    }

    /** Renames a group everywhere; a name the format refuses is allowed and listed as a problem. */
    public boolean renameGroup(String name, String newName) {
        CellRef sel = selection.get();
        if (!edit(d -> d.renamedGroup(name, newName))) {
            return false;
        }
        if (sel != null && name.equals(sel.group())) {
            selection.set(new CellRef(sel.slice(), newName));
        }
        return true;
    }

    public boolean removeGroup(String name) {
        return edit(d -> d.withoutGroup(name));
    }

    public boolean setGroupId(String name, int groupId) {
        return edit(d -> d.withGroupId(name, groupId));
    }

    /** Replaces the WorkerSpans ({@code default:5000,0-9:15000}; blank for none). */
    public boolean setWorkerSpans(String text) {
        WorkerSpans ws;
        try {
            ws = QuotaTableCodec.workerSpans(text);
        } catch (InvalidRequestException e) {
            message.set(e.getMessage());
            return false;
        }
        return edit(d -> d.withSpans(ws));
    }

    /** Sets (null: removes) one slice's WorkerSpans entry. */
    public boolean setSliceSpans(TimeSlice slice, Long workers) {
        return edit(d -> d.withSpans(slice, workers));
    }

    // ---- selection and keyboard commands

    /** Selects where a problem is: its slice and group cell, or its slice's band, or its group's row. */
    public void select(TableProblem problem) {
        if (problem != null && (problem.slice() != null || problem.group() != null)) {
            selection.set(new CellRef(problem.slice(), problem.group()));
        }
    }

    /**
     * Moves the selection by slices (in hour order, default first) and by group rows; row -1 is the
     * slices' band above the rows. Without a selection, selects the first cell.
     */
    public void moveSelection(int slices, int rows) {
        Draft d = draft.get();
        List<TimeSlice> order = d.byHour();
        CellRef sel = selection.get();
        int si = sel == null || sel.slice() == null ? -1 : order.indexOf(sel.slice());
        int gi = sel == null || sel.group() == null ? -1 : d.groupIndex(sel.group());
        if (sel == null) {
            si = 0;
            gi = d.groups().isEmpty() ? -1 : 0;
        } else {
            si = clamp(si < 0 ? 0 : si + slices, 0, order.size() - 1);
            gi = clamp(gi + rows, -1, d.groups().size() - 1);
        }
        selection.set(new CellRef(order.isEmpty() ? null : order.get(si), gi < 0 ? null : d.groups().get(gi).name()));
    }

    private static int clamp(int v, int lo, int hi) {
        return Math.max(lo, Math.min(hi, v));
    }

    /** Delete: the selected cell leaves its slice; a slice's band removes the slice; a row removes the group. */
    public boolean deleteSelection() {
        CellRef sel = selection.get();
        if (sel == null) {
            return false;
        }
        if (sel.slice() != null && sel.group() != null) {
            return removeFromSlice(sel.slice(), sel.group());
        }
        if (sel.slice() != null) {
            return removeSlice(sel.slice());
        }
        return sel.group() != null && removeGroup(sel.group());
    }

    /**
     * Insert: funds the selected group for one new hour — the first hour after the selected slice
     * (or from midnight) that no range slice covers — to be resized with Shift+arrows.
     *
     * @return the new slice, or null if there is no group selected or no free hour
     */
    public TimeSlice insertSlice() {
        CellRef sel = selection.get();
        if (sel == null || sel.group() == null) {
            message.set("select a group's row first: a slice is drawn for a group");
            return null;
        }
        Draft d = draft.get();
        int start = sel.slice() == null || sel.slice().isDefault() ? 0 : sel.slice().to();
        for (int i = 0; i < Hours.DAY; i++) {
            int h = (start + i) % Hours.DAY;
            if (d.sliceAt(h) == null || d.sliceAt(h).isDefault()) {
                return drawSlice(sel.group(), h, h + 1);
            }
        }
        message.set("every hour is already in a slice: resize one to make room");
        return null;
    }

    // ---- internals

    private boolean edit(UnaryOperator<Draft> change) {
        Draft now = draft.get();
        if (!now.workerForm()) {
            message.set(readOnlyReason());
            return false;
        }
        Draft next;
        try {
            next = change.apply(now);
        } catch (IllegalArgumentException e) {
            message.set(e.getMessage());
            return false;
        }
        if (next.equals(now)) {
            return false;
        }
        if (gestureStart == null) {
            history.record(now);
        }
        message.set(null);
        show(next);
        return true;
    }

    private static String readOnlyReason() {
        return "this table's quotas are resource vectors: the planner draws and edits worker counts only, so it is read-only here";
    }

    /** Makes {@code d} the draft: validates it, and keeps the selection on things that still exist. */
    private void show(Draft d) {
        Draft before = draft.get();
        draft.set(d);
        try {
            validTable.set(QuotaTable.of(d.raw(), d.workerSpans()));
            problems.clear();
        } catch (InvalidRequestException e) {
            validTable.set(null);
            problems.setAll(e.problems().stream().map(TableProblem::of).toList());
        }
        valid.set(validTable.get() != null);
        SliceOffer o = offer.get();
        if (o != null) {
            List<String> still = QuotaSources.leftOut(d, o.slice()).stream().filter(o.groups()::contains).toList();
            offer.set(still.isEmpty() ? null : still.equals(o.groups()) ? o : new SliceOffer(o.slice(), still, o.text()));
        }
        SpansFix fix = spansFix.get();
        if (fix != null && (d.slice(fix.to()) == null || ownSpans(d, fix.from()) == null || d.slice(fix.from()) != null)) {
            spansFix.set(null);
        }
        showWarnings();
        CellRef sel = selection.get();
        if (sel != null) {
            TimeSlice s = sel.slice() == null ? null : d.slice(sel.slice()) != null ? sel.slice() : samePlace(before, d, sel.slice());
            String g = sel.group() != null && d.group(sel.group()) != null ? sel.group() : null;
            selection.set(s == null && g == null ? null : new CellRef(s, g));
        }
        updateFlags();
    }

    /**
     * The slice of {@code after} at the place {@code slice} had in {@code before}, if only its hours
     * changed (undoing a resize): the selection stays on the slice rather than being lost.
     */
    private static TimeSlice samePlace(Draft before, Draft after, TimeSlice slice) {
        int i = before.slices().indexOf(before.slice(slice));
        if (i < 0 || before.slices().size() != after.slices().size()) {
            return null;
        }
        var now = after.slices().get(i);
        return now.cells().equals(before.slices().get(i).cells()) && !now.slice().isDefault() ? now.slice() : null;
    }

    private static Long ownSpans(Draft d, TimeSlice slice) {
        return d.spans().stream().filter(x -> x.slice().equals(slice)).map(x -> x.workers()).findFirst().orElse(null);
    }

    private void showWarnings() {
        Draft d = draft.get();
        warnings.setAll(QuotaSources.losses(d).stream()
                .map(l -> TableProblem.warning(l, acknowledged.contains(l.text()))).toList());
        List<TableProblem> all = new java.util.ArrayList<>(problems);
        all.addAll(warnings);
        listed.setAll(all);
        pushBlocker.set(blocker(d));
    }

    private String blocker(Draft d) {
        if (!problems.isEmpty()) {
            int n = problems.size();
            return "the draft has " + n + (n == 1 ? " problem" : " problems") + " (see the table's problem list): fix "
                    + (n == 1 ? "it" : "them") + " before pushing";
        }
        List<TableProblem> open = warnings.stream().filter(w -> w.kind() == TableProblem.Kind.WARNING).toList();
        if (!open.isEmpty()) {
            return open.size() + (open.size() == 1 ? " warning is" : " warnings are") + " not acknowledged ("
                    + open.get(0).message() + (open.size() > 1 ? ", ..." : "")
                    + "): acknowledge them in the table's problem list, or give those groups quota, before pushing";
        }
        if (d.slices().stream().allMatch(s -> s.cells().isEmpty())) {
            return "the table funds no group: pushing it would leave every group with nothing";
        }
        return null;
    }

    private void updateFlags() {
        Draft d = draft.get();
        dirty.set(!sameTable(d, saved));
        canUndo.set(history.canUndo() || (gestureStart != null && !gestureStart.equals(d)));
        canRedo.set(history.canRedo());
        editable.set(d.workerForm());
    }
}
