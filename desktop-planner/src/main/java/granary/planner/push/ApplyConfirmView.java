package granary.planner.push;

import java.util.List;

import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;
import javafx.scene.control.Dialog;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.layout.VBox;
import javafx.stage.Modality;
import javafx.stage.Window;

/**
 * The one question Apply asks (docs/planner.md, "Pushing a table"): a dialog that shows what will
 * change — every group's quota per hour, in force and in the draft, and how many entries of the
 * table change — with <em>Apply now</em> and <em>Cancel</em>. Cancel, Escape or closing the window
 * sends nothing and leaves the review as it was.
 *
 * <p>Ids for tests: {@code #applyDialog} (the dialog's pane), {@code #applyEffect} (the list),
 * {@code #confirmApply} and {@code #dismissApply} (the buttons).
 */
final class ApplyConfirmView extends Dialog<ButtonType> {

    static final ButtonType APPLY = new ButtonType("Apply now", ButtonBar.ButtonData.OK_DONE);
    static final ButtonType CANCEL = new ButtonType("Cancel", ButtonBar.ButtonData.CANCEL_CLOSE);

    /**
     * @param effect   the changes per group and hour, one a line
     * @param diffSize how many entries of the table in force change
     */
    ApplyConfirmView(Window owner, List<String> effect, int diffSize) {
        if (owner != null) {
            initOwner(owner);
        }
        initModality(Modality.WINDOW_MODAL);
        setTitle("Apply the draft to the master?");
        setHeaderText("Apply the draft to the master's table in force?");
        ListView<String> changes = new ListView<>();
        changes.setId("applyEffect");
        changes.getItems().setAll(effect.isEmpty() ? List.of("no group's quota changes at any hour") : effect);
        changes.setPrefSize(560, Math.min(320, 30 + 24 * Math.max(1, effect.size())));
        Label what = new Label("What changes for each group, hour by hour (in force -> draft, min/max):");
        Label entries = new Label(diffSize + (diffSize == 1 ? " entry of the table in force changes" : " entries of the table in force change")
                + " (the JSON diff is on the Push tab). Cancel sends nothing.");
        entries.setId("applyEntries");
        entries.setWrapText(true);
        getDialogPane().setContent(new VBox(6, what, changes, entries));
        getDialogPane().setId("applyDialog");
        getDialogPane().getButtonTypes().setAll(APPLY, CANCEL);
        getDialogPane().lookupButton(APPLY).setId("confirmApply");
        getDialogPane().lookupButton(CANCEL).setId("dismissApply");
        setResizable(true);
    }
}
