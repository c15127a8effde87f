package granary.planner.push;

import javafx.beans.binding.Bindings;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;

/**
 * Push: the dry run's diff against the table in force, then Apply or Cancel; the master's refusal with
 * every problem it named.
 */
public final class PushView extends BorderPane {

    public PushView(PushViewModel vm) {
        setPadding(new Insets(8));
        Button preview = new Button("Check against the master (dry run)");
        preview.setId("preview");
        preview.setOnAction(e -> vm.preview());
        Button apply = new Button("Apply");
        apply.setId("apply");
        apply.disableProperty().bind(Bindings.createBooleanBinding(() -> vm.stepProperty().get() != PushViewModel.Step.REVIEW
                || vm.diff().isEmpty(), vm.stepProperty(), vm.diff()));
        apply.setOnAction(e -> vm.requestApply());
        Button cancel = new Button("Cancel");
        cancel.setId("cancelPush");
        cancel.disableProperty().bind(vm.stepProperty().isNotEqualTo(PushViewModel.Step.REVIEW));
        cancel.setOnAction(e -> vm.cancel());
        preview.disableProperty().bind(vm.stepProperty().isEqualTo(PushViewModel.Step.CHECKING)
                .or(vm.stepProperty().isEqualTo(PushViewModel.Step.APPLYING)));
        Label message = new Label();
        message.setId("pushMessage");
        message.setWrapText(true);
        message.textProperty().bind(vm.messageProperty());
        Button confirm = new Button("Apply now");
        confirm.setId("confirmApply");
        confirm.setDefaultButton(true);
        confirm.setOnAction(e -> vm.apply());
        Button notNow = new Button("Not now");
        notNow.setId("dismissApply");
        notNow.setOnAction(e -> vm.dismissApply());
        HBox confirmBar = new HBox(8, new Label("Apply the changes summarised below to the master?"), confirm, notNow);
        confirmBar.setId("confirmBar");
        confirmBar.setAlignment(javafx.geometry.Pos.CENTER_LEFT);
        confirmBar.setPadding(new Insets(4, 6, 4, 6));
        confirmBar.setStyle("-fx-background-color: #fff3d6; -fx-border-color: #c98a00;");
        confirmBar.visibleProperty().bind(vm.confirmingProperty());
        confirmBar.managedProperty().bind(vm.confirmingProperty());
        HBox buttons = new HBox(8, preview, apply, cancel);
        buttons.getChildren().forEach(b -> ((Button) b).setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE));
        setTop(new VBox(8, buttons, message, confirmBar));

        ListView<String> diff = new ListView<>(vm.diff());
        diff.setId("diff");
        diff.setPlaceholder(new Label("Run the dry run to see what the draft changes in the table in force."));
        ListView<String> problems = new ListView<>(vm.problems());
        problems.setId("pushProblems");
        Label none = new Label();
        none.textProperty().bind(javafx.beans.binding.Bindings.createStringBinding(
                () -> vm.stepProperty().get() == PushViewModel.Step.REFUSED
                        ? "The master named no single problem: the reason is in the message above."
                        : "Nothing refused.", vm.stepProperty()));
        problems.setPlaceholder(none);
        problems.setPrefHeight(140);
        ListView<String> effect = new ListView<>(vm.effect());
        effect.setId("effect");
        effect.setPlaceholder(new Label("Run the dry run to see what the draft changes for each group, hour by hour."));
        effect.setPrefHeight(160);
        // the summary is what a planner reads first: it shares the height with the diff
        VBox.setVgrow(effect, javafx.scene.layout.Priority.ALWAYS);
        VBox.setVgrow(diff, javafx.scene.layout.Priority.ALWAYS);
        setCenter(new VBox(6, new Label("What changes for each group, hour by hour (in force -> draft, min/max)"), effect,
                new Label("The change to the table in force, as the master's JSON diff"), diff,
                new Label("The master's problems"), problems));
    }
}
