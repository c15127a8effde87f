package granary.planner.connect;

import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.PasswordField;
import javafx.scene.control.TextField;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;

/** The shell's connection bar: the master's URL, the token, Connect, and what the master said. */
public final class ConnectionView extends HBox {

    public ConnectionView(ConnectionViewModel vm) {
        super(8);
        setPadding(new Insets(6, 8, 6, 8));
        setAlignment(Pos.CENTER_LEFT);
        TextField url = new TextField();
        url.setId("masterUrl");
        url.setPrefColumnCount(16);
        url.setPromptText("http://127.0.0.1:7070");
        url.textProperty().bindBidirectional(vm.urlProperty());
        PasswordField token = new PasswordField();
        token.setId("masterToken");
        token.setPrefColumnCount(9);
        token.setPromptText("token (--issue-token=reader/NAME)");
        token.textProperty().bindBidirectional(vm.tokenProperty());
        Button connect = new Button("Connect");
        connect.setId("connect");
        connect.setDefaultButton(false);
        connect.disableProperty().bind(vm.busyProperty());
        connect.setOnAction(e -> vm.connect());
        url.setOnAction(e -> vm.connect());
        token.setOnAction(e -> vm.connect());
        Label state = new Label();
        state.setId("connectionState");
        state.textProperty().bind(vm.stateProperty());
        state.setMaxWidth(Double.MAX_VALUE);
        HBox.setHgrow(state, Priority.ALWAYS);
        getChildren().addAll(new Label("Master"), url, new Label("Token"), token, connect, state);
        // labels and buttons keep their text; the state line is what gives way on a narrow window
        getChildren().forEach(n -> {
            if (n instanceof Label l && l != state) {
                l.setMinWidth(Region.USE_PREF_SIZE);
            } else if (n instanceof Button b) {
                b.setMinWidth(Region.USE_PREF_SIZE);
            }
        });
        state.setMinWidth(0);
        // the fields keep their width: an address cut to "http://12" cannot be checked by eye
        url.setMinWidth(Region.USE_PREF_SIZE);
        token.setMinWidth(Region.USE_PREF_SIZE);
        javafx.scene.control.Tooltip tip = new javafx.scene.control.Tooltip();
        tip.textProperty().bind(vm.stateProperty());
        state.setTooltip(tip);
    }
}
