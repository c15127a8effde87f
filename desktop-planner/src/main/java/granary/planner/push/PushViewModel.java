package granary.planner.push;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

import granary.planner.master.ApiError;
import granary.planner.master.MasterClient;

/**
 * Pushing a drafted quota table to a master (docs/planner.md, "Pushing a table"): a dry run first,
 * whose diff against the table in force the planner reads; then, on confirmation, the load — sent
 * with the dry run's revision as {@code If-Match}, so that a table someone else loaded in between is
 * refused ({@code stale-revision}) instead of overwritten. Any refusal is shown with every problem the
 * master named; nothing is applied unless the person confirmed this very diff.
 */
public final class PushViewModel {

    /** Where the push is. */
    public enum Step { IDLE, CHECKING, REVIEW, APPLYING, APPLIED, REFUSED }

    /** What is pushed: the draft's text in the quota table format (docs/multi-tenancy.md, "The quota table") and its WorkerSpans (or null). */
    public record Draft(String tableJson, String workerSpans) {
    }

    private final Executor ui;
    private final Executor background;
    private final ObjectProperty<MasterClient> master = new SimpleObjectProperty<>();
    private final ReadOnlyObjectWrapper<Step> step = new ReadOnlyObjectWrapper<>(Step.IDLE);
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");
    private final ObservableList<String> diff = FXCollections.observableArrayList();
    private final ObservableList<String> problems = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper appliedRevision = new ReadOnlyStringWrapper();
    private final ObservableList<String> effect = FXCollections.observableArrayList();
    private final javafx.beans.property.ReadOnlyBooleanWrapper confirming = new javafx.beans.property.ReadOnlyBooleanWrapper();
    private Supplier<Draft> draft = () -> null;
    private Supplier<String> blocker = () -> null;
    /** The draft and the in-force revision the shown diff was made from: what {@link #apply} sends. */
    private Draft reviewed;
    private String reviewedRevision;
    /** The message before Apply asked: put back if the answer is no. */
    private String beforeAsking = "";

    public PushViewModel(Executor ui, Executor background) {
        this.ui = ui;
        this.background = background;
    }

    /** The master to push to; null while not connected. */
    public ObjectProperty<MasterClient> masterProperty() {
        return master;
    }

    /** Where the draft comes from; it answers null while the draft has problems (it cannot be pushed then). */
    public void draftSource(Supplier<Draft> source) {
        this.draft = source;
    }

    /**
     * Why the draft cannot be pushed, in the planner's words (problems, warnings not acknowledged, a
     * table that funds nobody), or null: asked before every dry run.
     */
    public void blockerSource(Supplier<String> source) {
        this.blocker = source;
    }

    public ReadOnlyObjectProperty<Step> stepProperty() {
        return step.getReadOnlyProperty();
    }

    /**
     * The dry run's effect per group and hour, before the JSON diff: {@code group3 00:00-09:00: 3000/3000 -> 3000/4000},
     * computed from the table in force the master answered and the draft.
     */
    public ObservableList<String> effect() {
        return effect;
    }

    /** True while Apply asks for the one confirmation (with {@link #effect()}). */
    public javafx.beans.property.ReadOnlyBooleanProperty confirmingProperty() {
        return confirming.getReadOnlyProperty();
    }

    /** Apply, as a person asks for it: asks once, with the summary; {@link #apply()} then loads. */
    public void requestApply() {
        if (step.get() != Step.REVIEW || reviewed == null) {
            refuse("nothing reviewed to apply: run the dry run first", List.of());
            return;
        }
        beforeAsking = message.get();
        // the question first: whoever shows the confirmation reads it when confirming turns true
        message.set("apply " + diff.size() + " change(s) to the master's table in force? "
                + (effect.isEmpty() ? "no group's quota changes at any hour" : effect.size() + " change(s) of a group's quota, listed"));
        confirming.set(true);
    }

    /** Answers the confirmation: no. Nothing is sent; the review, and what it said, stay as they were. */
    public void dismissApply() {
        if (!confirming.get()) {
            return;
        }
        confirming.set(false);
        message.set(beforeAsking);
    }

    /** The revision the last Apply put in force; null before one. */
    public ReadOnlyStringProperty appliedRevisionProperty() {
        return appliedRevision.getReadOnlyProperty();
    }

    /** One line: what happened last, or why nothing can be pushed. */
    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    /** The dry run's diff against the table in force, one change per line. */
    public ObservableList<String> diff() {
        return diff;
    }

    /** Every problem of the master's last refusal. */
    public ObservableList<String> problems() {
        return problems;
    }

    /** Dry run: validates the draft on the master and shows the diff; changes nothing on the master. */
    public void preview() {
        MasterClient c = master.get();
        Draft d = draft.get();
        if (c == null) {
            refuse("not connected to a master: connect first", List.of());
            return;
        }
        String why = blocker.get();
        if (why != null) {
            refuse(why, List.of());
            return;
        }
        if (d == null) {
            refuse("the draft has problems (see the table's problem list): fix them before pushing", List.of());
            return;
        }
        step.set(Step.CHECKING);
        message.set("checking the draft on " + c.api() + " (dry run) ...");
        diff.clear();
        effect.clear();
        confirming.set(false);
        problems.clear();
        background.execute(() -> {
            try {
                MasterClient.Outcome o = c.putTable(d.tableJson(), d.workerSpans(), null, true);
                List<String> lines = o.diff().stream().map(MasterClient.Change::toString).toList();
                List<String> effects = effect(c, d, o.revision());
                ui.execute(() -> {
                    reviewed = d;
                    reviewedRevision = o.revision();
                    effect.setAll(effects);
                    diff.setAll(lines);
                    step.set(Step.REVIEW);
                    message.set(lines.isEmpty() ? "the draft is the table in force: nothing to change"
                            : lines.size() + " change(s) against the table in force (revision " + shortRev(o.revision()) + "): apply?");
                });
            } catch (ApiError e) {
                ui.execute(() -> refuse(e));
            }
        });
    }

    /** Loads the reviewed draft, exactly as the diff showed it, if the table in force did not change since. */
    public void apply() {
        MasterClient c = master.get();
        if (step.get() != Step.REVIEW || reviewed == null || c == null) {
            refuse("nothing reviewed to apply: run the dry run first", List.of());
            return;
        }
        Draft d = reviewed;
        String rev = reviewedRevision;
        confirming.set(false);
        step.set(Step.APPLYING);
        message.set("applying ...");
        background.execute(() -> {
            try {
                MasterClient.Outcome o = c.putTable(d.tableJson(), d.workerSpans(), rev, false);
                ui.execute(() -> {
                    reviewed = null;
                    appliedRevision.set(o.newRevision());
                    step.set(Step.APPLIED);
                    message.set("applied: revision " + shortRev(o.newRevision()) + " is in force"
                            + (o.notes().isEmpty() ? "" : "; " + String.join("; ", o.notes())));
                });
            } catch (ApiError e) {
                ui.execute(() -> refuse(e));
            }
        });
    }

    /**
     * The effect per group and hour of replacing the table in force (read again, at the dry run's
     * revision) with the draft; a line saying why if it cannot be told.
     */
    private static List<String> effect(MasterClient c, Draft d, String revision) {
        try {
            MasterClient.InForce now = c.table();
            granary.planner.table.model.Draft before = granary.planner.table.model.DraftJson.read(now.tableJson(), "the table in force",
                    granary.policy.quota.api.QuotaTableCodec.workerSpans(now.workerSpans()));
            granary.planner.table.model.Draft after = granary.planner.table.model.DraftJson.read(d.tableJson(), "the draft",
                    granary.policy.quota.api.QuotaTableCodec.workerSpans(d.workerSpans()));
            List<String> out = new java.util.ArrayList<>(granary.planner.table.model.TableEffect.between(before, after).stream()
                    .map(granary.planner.table.model.TableEffect.Change::text).toList());
            if (revision != null && !revision.equals(now.revision())) {
                out.add(0, "(the table in force changed while this was computed: run the dry run again)");
            }
            return out;
        } catch (ApiError | RuntimeException e) {
            return List.of("(the effect per group and hour cannot be told: " + e.getMessage() + ")");
        }
    }

    /** Drops the reviewed diff without applying it. */
    public void cancel() {
        reviewed = null;
        confirming.set(false);
        effect.clear();
        diff.clear();
        step.set(Step.IDLE);
        message.set("push cancelled: nothing was changed on the master");
    }

    private void refuse(ApiError e) {
        reviewed = null;
        String head = e.status() == 0 ? "nothing was pushed: " + e.getMessage()
                : e.status() == 403 ? "this token may not push: the master refused (403 forbidden); pushing needs an admin token "
                        + "(issued with --issue-token=admin/NAME). The master said: " + e.getMessage()
                : e.status() == 409 && "stale-revision".equals(e.type())
                        ? "someone loaded another table since the dry run: the master refused (409 stale-revision); run the dry "
                        + "run again to see the new diff. The master said: " + e.getMessage()
                : "the master refused (" + e.status() + " " + e.type() + "): " + e.getMessage();
        List<String> items = new java.util.ArrayList<>(e.errors().stream().map(ApiError.Item::toString).toList());
        if (e.details() != null) {
            items.add("details: " + e.details());
        }
        refuse(head, items);
    }

    private void refuse(String why, List<String> items) {
        step.set(Step.REFUSED);
        message.set(why);
        problems.setAll(items);
    }

    private static String shortRev(String rev) {
        return rev == null ? "?" : rev.length() > 12 ? rev.substring(0, 12) : rev;
    }
}
